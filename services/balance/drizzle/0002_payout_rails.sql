CREATE TABLE `bank_statements` (
	`sha256` text PRIMARY KEY NOT NULL,
	`imported_at` integer NOT NULL,
	`account` text NOT NULL,
	`period_from` text NOT NULL,
	`period_to` text NOT NULL,
	`report` text NOT NULL,
	`imported_by` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payment_orders` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`payout_id` text NOT NULL,
	`account_id` text NOT NULL,
	`date` text NOT NULL,
	`reference` text NOT NULL,
	`rail` text NOT NULL,
	`batch_id` text,
	`payee` text NOT NULL,
	`purpose` text NOT NULL,
	`created_at` integer NOT NULL,
	`submitted_at` integer,
	`paid_statement` text,
	`returned_statement` text,
	FOREIGN KEY (`payout_id`) REFERENCES `payouts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payment_orders_payout_id_unique` ON `payment_orders` (`payout_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `payment_orders_reference_unique` ON `payment_orders` (`reference`);--> statement-breakpoint
CREATE INDEX `payment_orders_unsubmitted` ON `payment_orders` (`rail`,`seq`) WHERE "payment_orders"."submitted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `payment_orders_batch` ON `payment_orders` (`batch_id`);--> statement-breakpoint
CREATE TABLE `payout_batches` (
	`id` text PRIMARY KEY NOT NULL,
	`created_at` integer NOT NULL,
	`orders` integer NOT NULL,
	`total_kopecks` integer NOT NULL,
	`file` text NOT NULL,
	`created_by` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `payout_events` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`payout_id` text NOT NULL,
	`status` text NOT NULL,
	`event` text NOT NULL,
	`published_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payout_events_key` ON `payout_events` (`payout_id`,`status`);--> statement-breakpoint
CREATE INDEX `payout_events_unpublished` ON `payout_events` (`seq`) WHERE "payout_events"."published_at" IS NULL;--> statement-breakpoint
ALTER TABLE `payouts` ADD `scheduled` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `payouts` ADD `sent_at` integer;--> statement-breakpoint
ALTER TABLE `payouts` ADD `failed_at` integer;--> statement-breakpoint
ALTER TABLE `payouts` ADD `returned_at` integer;--> statement-breakpoint
ALTER TABLE `payouts` ADD `failure_reason` text;