ALTER TABLE `attempts` DROP COLUMN `error`;--> statement-breakpoint
ALTER TABLE `deliveries` DROP COLUMN `last_error`;