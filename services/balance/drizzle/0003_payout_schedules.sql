CREATE TABLE `payout_schedules` (
	`account_id` text PRIMARY KEY NOT NULL,
	`frequency` text NOT NULL,
	`weekday` integer,
	`time` text NOT NULL,
	`minimum_kopecks` integer NOT NULL,
	`next_run_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `payout_schedules_due` ON `payout_schedules` (`next_run_at`);