CREATE TABLE `outbox` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`event_id` text NOT NULL,
	`payment_id` text NOT NULL,
	`status` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL,
	`published_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `outbox_event_id_unique` ON `outbox` (`event_id`);--> statement-breakpoint
CREATE INDEX `outbox_unpublished_idx` ON `outbox` (`seq`) WHERE "outbox"."published_at" IS NULL;--> statement-breakpoint
CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`shop_id` text NOT NULL,
	`account_id` text NOT NULL,
	`seq` integer NOT NULL,
	`order_id` text NOT NULL,
	`status` text NOT NULL,
	`amount_kopecks` integer NOT NULL,
	`commission_kopecks` integer NOT NULL,
	`description` text,
	`email` text,
	`method` text,
	`telegram_id` text,
	`metadata` text,
	`success_url` text,
	`fail_url` text,
	`is_test` integer NOT NULL,
	`paid_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`expires_at` integer,
	`provider_session_id` text,
	`sbp_qr_payload` text,
	`sbp_deep_link` text,
	`card_form_action` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payments_shop_order_uq` ON `payments` (`shop_id`,`order_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `payments_shop_seq_uq` ON `payments` (`shop_id`,`seq`);--> statement-breakpoint
CREATE INDEX `payments_shop_created_idx` ON `payments` (`shop_id`,`created_at`,`id`,`seq`);--> statement-breakpoint
CREATE INDEX `payments_shop_status_seq_idx` ON `payments` (`shop_id`,`status`,`seq`);--> statement-breakpoint
CREATE INDEX `payments_expires_idx` ON `payments` (`expires_at`) WHERE "payments"."expires_at" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `status_counts` (
	`shop_id` text NOT NULL,
	`status` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`shop_id`, `status`)
);
