CREATE TABLE `attempts` (
	`delivery_id` text NOT NULL,
	`series` integer NOT NULL,
	`attempt` integer NOT NULL,
	`started_at` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`http_status` integer,
	`error` text,
	PRIMARY KEY(`delivery_id`, `series`, `attempt`),
	FOREIGN KEY (`delivery_id`) REFERENCES `deliveries`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`shop_id` text NOT NULL,
	`payment_id` text NOT NULL,
	`status` text NOT NULL,
	`order_id` text NOT NULL,
	`body` text NOT NULL,
	`occurred_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`series` integer DEFAULT 1 NOT NULL,
	`queued_series` integer DEFAULT 0 NOT NULL,
	`series_attempts` integer DEFAULT 0 NOT NULL,
	`result` text DEFAULT 'pending' NOT NULL,
	`last_error` text,
	`next_attempt_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `deliveries_payment_status` ON `deliveries` (`payment_id`,`status`);--> statement-breakpoint
CREATE INDEX `deliveries_shop_id` ON `deliveries` (`shop_id`,`id`);--> statement-breakpoint
CREATE INDEX `deliveries_shop_occurred` ON `deliveries` (`shop_id`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `deliveries_unqueued` ON `deliveries` (`id`) WHERE queued_series < series;