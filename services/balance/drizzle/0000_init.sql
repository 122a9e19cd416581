CREATE TABLE `accounts` (
	`account_id` text PRIMARY KEY NOT NULL,
	`available_kopecks` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `applied_events` (
	`payment_id` text NOT NULL,
	`status` text NOT NULL,
	`account_id` text NOT NULL,
	`shop_id` text NOT NULL,
	`amount_kopecks` integer NOT NULL,
	`commission_kopecks` integer NOT NULL,
	`net_kopecks` integer NOT NULL,
	`paid_at` integer,
	`moscow_day` text,
	`occurred_at` integer NOT NULL,
	`applied_at` integer NOT NULL,
	PRIMARY KEY(`payment_id`, `status`)
);
--> statement-breakpoint
CREATE TABLE `frozen_buckets` (
	`account_id` text NOT NULL,
	`moscow_day` text NOT NULL,
	`amount_kopecks` integer NOT NULL,
	PRIMARY KEY(`account_id`, `moscow_day`)
);
--> statement-breakpoint
CREATE TABLE `payouts` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`amount_kopecks` integer NOT NULL,
	`status` text NOT NULL,
	`idempotency_key` text,
	`created_at` integer NOT NULL,
	`paid_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payouts_idempotency` ON `payouts` (`account_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `payouts_account` ON `payouts` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `payouts_status` ON `payouts` (`status`);--> statement-breakpoint
CREATE TABLE `refunds` (
	`payment_id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`amount_kopecks` integer NOT NULL,
	`reserved_at` integer,
	`refunded_at` integer
);
