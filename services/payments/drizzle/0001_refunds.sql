CREATE TABLE `refunds` (
	`id` text PRIMARY KEY NOT NULL,
	`payment_id` text NOT NULL,
	`shop_id` text NOT NULL,
	`amount_kopecks` integer NOT NULL,
	`balance_kopecks` integer NOT NULL,
	`reason` text,
	`status` text NOT NULL,
	`failure_reason` text,
	`idempotency_key` text,
	`created_at` integer NOT NULL,
	`completed_at` integer,
	`retry_at` integer,
	FOREIGN KEY (`payment_id`) REFERENCES `payments`(`id`) ON UPDATE no action ON DELETE no action,
	CONSTRAINT "refunds_amount_positive" CHECK("refunds"."amount_kopecks" > 0 AND "refunds"."balance_kopecks" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `refunds_payment_key_uq` ON `refunds` (`payment_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `refunds_payment_idx` ON `refunds` (`payment_id`,`id`);--> statement-breakpoint
CREATE INDEX `refunds_retry_idx` ON `refunds` (`retry_at`) WHERE "refunds"."retry_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `outbox` ADD `kind` text DEFAULT 'payment' NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `refunded_kopecks` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `refunding_kopecks` integer DEFAULT 0 NOT NULL;