CREATE TABLE `applied_refund_events` (
	`refund_id` text PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`payment_id` text NOT NULL,
	`account_id` text NOT NULL,
	`balance_kopecks` integer NOT NULL,
	`occurred_at` integer NOT NULL,
	`applied_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `refund_holds` (
	`refund_id` text PRIMARY KEY NOT NULL,
	`payment_id` text NOT NULL,
	`account_id` text NOT NULL,
	`state` text NOT NULL,
	`frozen_day` text,
	`frozen_kopecks` integer NOT NULL,
	`available_kopecks` integer NOT NULL,
	`created_at` integer NOT NULL,
	`settled_at` integer
);
--> statement-breakpoint
CREATE INDEX `refund_holds_payment` ON `refund_holds` (`payment_id`);