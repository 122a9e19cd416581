DROP INDEX `deliveries_payment_status`;--> statement-breakpoint
CREATE UNIQUE INDEX `deliveries_event_shop` ON `deliveries` (`payment_id`,`status`,`shop_id`);