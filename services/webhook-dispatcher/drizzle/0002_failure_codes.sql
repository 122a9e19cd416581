DROP INDEX `deliveries_shop_failing`;--> statement-breakpoint
ALTER TABLE `deliveries` ADD `last_error_code` text;--> statement-breakpoint
ALTER TABLE `deliveries` ADD `last_error_params` text;--> statement-breakpoint
CREATE INDEX `deliveries_shop_failing` ON `deliveries` (`shop_id`,`id`) WHERE (result in ('exhausted', 'blocked') or (result = 'pending' and last_error_code is not null));--> statement-breakpoint
ALTER TABLE `attempts` ADD `error_code` text;--> statement-breakpoint
ALTER TABLE `attempts` ADD `error_params` text;