ALTER TABLE `attempts` ADD `error_code` text;--> statement-breakpoint
ALTER TABLE `attempts` ADD `error_params` text;--> statement-breakpoint
ALTER TABLE `deliveries` ADD `last_error_code` text;--> statement-breakpoint
ALTER TABLE `deliveries` ADD `last_error_params` text;