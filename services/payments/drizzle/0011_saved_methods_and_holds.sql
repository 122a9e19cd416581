CREATE TABLE `saved_methods` (
	`id` text PRIMARY KEY NOT NULL,
	`shop_id` text NOT NULL,
	`account_id` text NOT NULL,
	`customer_id` text,
	`payment_id` text NOT NULL,
	`provider_method_id` text,
	`method` text NOT NULL,
	`status` text NOT NULL,
	`card` text,
	`sbp` text,
	`is_test` integer NOT NULL,
	`expires_at` integer,
	`created_at` integer NOT NULL,
	`deactivated_at` integer,
	`revoked_by` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `saved_methods_payment_id_unique` ON `saved_methods` (`payment_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `saved_methods_provider_method_id_unique` ON `saved_methods` (`provider_method_id`);--> statement-breakpoint
CREATE INDEX `saved_methods_shop_idx` ON `saved_methods` (`shop_id`,`id`);--> statement-breakpoint
CREATE INDEX `saved_methods_customer_idx` ON `saved_methods` (`shop_id`,`customer_id`,`id`);--> statement-breakpoint
CREATE INDEX `saved_methods_expires_idx` ON `saved_methods` (`expires_at`) WHERE "saved_methods"."expires_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `customer_id` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `save_method` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `save_consent` integer;--> statement-breakpoint
ALTER TABLE `payments` ADD `hold` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `held_kopecks` integer;--> statement-breakpoint
ALTER TABLE `payments` ADD `capture_receipt` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `saved_method_id` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `payment_method` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `merchant_initiated` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `payments` ADD `charge_retry_at` integer;--> statement-breakpoint
ALTER TABLE `payments` ADD `failure_code` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `failure_params` text;--> statement-breakpoint
ALTER TABLE `payments` ADD `authentication` text;--> statement-breakpoint
CREATE INDEX `payments_charge_retry_idx` ON `payments` (`charge_retry_at`) WHERE "payments"."charge_retry_at" IS NOT NULL;