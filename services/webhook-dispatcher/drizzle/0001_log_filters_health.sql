CREATE TABLE `delivery_health_daily` (
	`shop_id` text NOT NULL,
	`day` text NOT NULL,
	`state` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`shop_id`, `day`, `state`)
);
--> statement-breakpoint
CREATE INDEX `deliveries_shop_status_id` ON `deliveries` (`shop_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `deliveries_shop_order_id` ON `deliveries` (`shop_id`,`order_id`,`id`);--> statement-breakpoint
CREATE INDEX `deliveries_shop_failing` ON `deliveries` (`shop_id`,`id`) WHERE (result in ('exhausted', 'blocked') or (result = 'pending' and last_error is not null));--> statement-breakpoint
-- Hand-written: the health rollup is kept by triggers, in the same transaction as every change of a delivery (see schema.ts).
CREATE TRIGGER `deliveries_health_insert` AFTER INSERT ON `deliveries` BEGIN
  INSERT INTO `delivery_health_daily` (`shop_id`, `day`, `state`, `count`) VALUES (NEW.shop_id, strftime('%Y-%m-%d', (NEW.occurred_at + 10800000) / 1000, 'unixepoch'), (CASE WHEN NEW.result = 'delivered' AND NEW.series = 1 AND NEW.series_attempts = 1 THEN 'first' WHEN NEW.result = 'delivered' THEN 'delivered' WHEN NEW.result IN ('exhausted', 'blocked') THEN 'failed' WHEN NEW.series_attempts > 0 THEN 'retrying' ELSE 'pending' END), 1)
  ON CONFLICT (`shop_id`, `day`, `state`) DO UPDATE SET `count` = `count` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `deliveries_health_update` AFTER UPDATE OF `result`, `series`, `series_attempts`, `occurred_at`, `shop_id` ON `deliveries`
WHEN (CASE WHEN OLD.result = 'delivered' AND OLD.series = 1 AND OLD.series_attempts = 1 THEN 'first' WHEN OLD.result = 'delivered' THEN 'delivered' WHEN OLD.result IN ('exhausted', 'blocked') THEN 'failed' WHEN OLD.series_attempts > 0 THEN 'retrying' ELSE 'pending' END) IS NOT (CASE WHEN NEW.result = 'delivered' AND NEW.series = 1 AND NEW.series_attempts = 1 THEN 'first' WHEN NEW.result = 'delivered' THEN 'delivered' WHEN NEW.result IN ('exhausted', 'blocked') THEN 'failed' WHEN NEW.series_attempts > 0 THEN 'retrying' ELSE 'pending' END) OR OLD.occurred_at IS NOT NEW.occurred_at OR OLD.shop_id IS NOT NEW.shop_id BEGIN
  UPDATE `delivery_health_daily` SET `count` = `count` - 1 WHERE `shop_id` = OLD.shop_id AND `day` = strftime('%Y-%m-%d', (OLD.occurred_at + 10800000) / 1000, 'unixepoch') AND `state` = (CASE WHEN OLD.result = 'delivered' AND OLD.series = 1 AND OLD.series_attempts = 1 THEN 'first' WHEN OLD.result = 'delivered' THEN 'delivered' WHEN OLD.result IN ('exhausted', 'blocked') THEN 'failed' WHEN OLD.series_attempts > 0 THEN 'retrying' ELSE 'pending' END);
  INSERT INTO `delivery_health_daily` (`shop_id`, `day`, `state`, `count`) VALUES (NEW.shop_id, strftime('%Y-%m-%d', (NEW.occurred_at + 10800000) / 1000, 'unixepoch'), (CASE WHEN NEW.result = 'delivered' AND NEW.series = 1 AND NEW.series_attempts = 1 THEN 'first' WHEN NEW.result = 'delivered' THEN 'delivered' WHEN NEW.result IN ('exhausted', 'blocked') THEN 'failed' WHEN NEW.series_attempts > 0 THEN 'retrying' ELSE 'pending' END), 1)
  ON CONFLICT (`shop_id`, `day`, `state`) DO UPDATE SET `count` = `count` + 1;
END;
--> statement-breakpoint
INSERT INTO `delivery_health_daily` (`shop_id`, `day`, `state`, `count`)
SELECT `d`.`shop_id`, strftime('%Y-%m-%d', (d.occurred_at + 10800000) / 1000, 'unixepoch'), (CASE WHEN d.result = 'delivered' AND d.series = 1 AND d.series_attempts = 1 THEN 'first' WHEN d.result = 'delivered' THEN 'delivered' WHEN d.result IN ('exhausted', 'blocked') THEN 'failed' WHEN d.series_attempts > 0 THEN 'retrying' ELSE 'pending' END), count(*) FROM `deliveries` AS `d` GROUP BY 1, 2, 3;
