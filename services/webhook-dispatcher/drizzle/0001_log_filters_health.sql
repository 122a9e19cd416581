DROP INDEX `deliveries_shop_occurred`;--> statement-breakpoint
CREATE INDEX `deliveries_shop_occurred_health` ON `deliveries` (`shop_id`,`occurred_at`,`result`,`series`,`series_attempts`);--> statement-breakpoint
CREATE INDEX `deliveries_shop_status_id` ON `deliveries` (`shop_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `deliveries_shop_order_id` ON `deliveries` (`shop_id`,`order_id`,`id`);--> statement-breakpoint
CREATE INDEX `deliveries_shop_failing` ON `deliveries` (`shop_id`,`id`) WHERE (result in ('exhausted', 'blocked') or (result = 'pending' and last_error is not null));