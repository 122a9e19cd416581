DROP INDEX `deliveries_shop_failing`;--> statement-breakpoint
CREATE INDEX `deliveries_shop_failing` ON `deliveries` (`shop_id`,`id`) WHERE ((result in ('exhausted', 'blocked') or (result = 'pending' and last_error_code is not null)) and coalesce(last_error_code, '') <> 'WEBHOOK_URL_MISSING');--> statement-breakpoint
-- Hand-written: the health rollup's cells are redefined (schema.ts, HEALTH_STATES): a delivery whose
-- shop has no webhook URL is "unsent", not failed; how the first attempt went is counted once, when
-- attempt 1 of series 1 is logged, in cells a resend or a replay never moves. The triggers keep their
-- names; the rollup is rebuilt from the deliveries and their first attempts.
DROP TRIGGER `deliveries_health_insert`;--> statement-breakpoint
DROP TRIGGER `deliveries_health_update`;--> statement-breakpoint
CREATE TRIGGER `deliveries_health_insert` AFTER INSERT ON `deliveries` BEGIN
  INSERT INTO `delivery_health_daily` (`shop_id`, `day`, `state`, `count`) VALUES (NEW.shop_id, strftime('%Y-%m-%d', (NEW.occurred_at + 10800000) / 1000, 'unixepoch'), (CASE WHEN NEW.result = 'delivered' THEN 'delivered' WHEN NEW.last_error_code = 'WEBHOOK_URL_MISSING' THEN 'unsent' WHEN NEW.result IN ('exhausted', 'blocked') THEN 'failed' WHEN NEW.series_attempts > 0 THEN 'retrying' ELSE 'pending' END), 1)
  ON CONFLICT (`shop_id`, `day`, `state`) DO UPDATE SET `count` = `count` + excluded.`count`;
END;
--> statement-breakpoint
CREATE TRIGGER `deliveries_health_update` AFTER UPDATE OF `result`, `series`, `series_attempts`, `last_error_code` ON `deliveries`
WHEN (CASE WHEN OLD.result = 'delivered' THEN 'delivered' WHEN OLD.last_error_code = 'WEBHOOK_URL_MISSING' THEN 'unsent' WHEN OLD.result IN ('exhausted', 'blocked') THEN 'failed' WHEN OLD.series_attempts > 0 THEN 'retrying' ELSE 'pending' END) IS NOT (CASE WHEN NEW.result = 'delivered' THEN 'delivered' WHEN NEW.last_error_code = 'WEBHOOK_URL_MISSING' THEN 'unsent' WHEN NEW.result IN ('exhausted', 'blocked') THEN 'failed' WHEN NEW.series_attempts > 0 THEN 'retrying' ELSE 'pending' END) OR (OLD.series = 1 AND OLD.series_attempts = 0 AND NEW.series = 1 AND NEW.series_attempts = 1 AND coalesce(NEW.last_error_code, '') <> 'WEBHOOK_URL_MISSING') BEGIN
  UPDATE `delivery_health_daily` SET `count` = `count` - 1 WHERE `shop_id` = OLD.shop_id AND `day` = strftime('%Y-%m-%d', (OLD.occurred_at + 10800000) / 1000, 'unixepoch') AND `state` = (CASE WHEN OLD.result = 'delivered' THEN 'delivered' WHEN OLD.last_error_code = 'WEBHOOK_URL_MISSING' THEN 'unsent' WHEN OLD.result IN ('exhausted', 'blocked') THEN 'failed' WHEN OLD.series_attempts > 0 THEN 'retrying' ELSE 'pending' END) AND (CASE WHEN OLD.result = 'delivered' THEN 'delivered' WHEN OLD.last_error_code = 'WEBHOOK_URL_MISSING' THEN 'unsent' WHEN OLD.result IN ('exhausted', 'blocked') THEN 'failed' WHEN OLD.series_attempts > 0 THEN 'retrying' ELSE 'pending' END) IS NOT (CASE WHEN NEW.result = 'delivered' THEN 'delivered' WHEN NEW.last_error_code = 'WEBHOOK_URL_MISSING' THEN 'unsent' WHEN NEW.result IN ('exhausted', 'blocked') THEN 'failed' WHEN NEW.series_attempts > 0 THEN 'retrying' ELSE 'pending' END);
  INSERT INTO `delivery_health_daily` (`shop_id`, `day`, `state`, `count`) SELECT NEW.shop_id, strftime('%Y-%m-%d', (NEW.occurred_at + 10800000) / 1000, 'unixepoch'), (CASE WHEN NEW.result = 'delivered' THEN 'delivered' WHEN NEW.last_error_code = 'WEBHOOK_URL_MISSING' THEN 'unsent' WHEN NEW.result IN ('exhausted', 'blocked') THEN 'failed' WHEN NEW.series_attempts > 0 THEN 'retrying' ELSE 'pending' END), 1 WHERE (CASE WHEN OLD.result = 'delivered' THEN 'delivered' WHEN OLD.last_error_code = 'WEBHOOK_URL_MISSING' THEN 'unsent' WHEN OLD.result IN ('exhausted', 'blocked') THEN 'failed' WHEN OLD.series_attempts > 0 THEN 'retrying' ELSE 'pending' END) IS NOT (CASE WHEN NEW.result = 'delivered' THEN 'delivered' WHEN NEW.last_error_code = 'WEBHOOK_URL_MISSING' THEN 'unsent' WHEN NEW.result IN ('exhausted', 'blocked') THEN 'failed' WHEN NEW.series_attempts > 0 THEN 'retrying' ELSE 'pending' END)
  ON CONFLICT (`shop_id`, `day`, `state`) DO UPDATE SET `count` = `count` + excluded.`count`;
  INSERT INTO `delivery_health_daily` (`shop_id`, `day`, `state`, `count`) SELECT NEW.shop_id, strftime('%Y-%m-%d', (NEW.occurred_at + 10800000) / 1000, 'unixepoch'), 'first_sent', 1 WHERE (OLD.series = 1 AND OLD.series_attempts = 0 AND NEW.series = 1 AND NEW.series_attempts = 1 AND coalesce(NEW.last_error_code, '') <> 'WEBHOOK_URL_MISSING')
  ON CONFLICT (`shop_id`, `day`, `state`) DO UPDATE SET `count` = `count` + excluded.`count`;
  INSERT INTO `delivery_health_daily` (`shop_id`, `day`, `state`, `count`) SELECT NEW.shop_id, strftime('%Y-%m-%d', (NEW.occurred_at + 10800000) / 1000, 'unixepoch'), 'first_delivered', 1 WHERE (OLD.series = 1 AND OLD.series_attempts = 0 AND NEW.series = 1 AND NEW.series_attempts = 1 AND coalesce(NEW.last_error_code, '') <> 'WEBHOOK_URL_MISSING') AND NEW.result = 'delivered'
  ON CONFLICT (`shop_id`, `day`, `state`) DO UPDATE SET `count` = `count` + excluded.`count`;
END;
--> statement-breakpoint
DELETE FROM `delivery_health_daily`;--> statement-breakpoint
INSERT INTO `delivery_health_daily` (`shop_id`, `day`, `state`, `count`)
SELECT `shop_id`, `day`, `state`, count(*) FROM (
  SELECT d.shop_id AS `shop_id`, strftime('%Y-%m-%d', (d.occurred_at + 10800000) / 1000, 'unixepoch') AS `day`, (CASE WHEN d.result = 'delivered' THEN 'delivered' WHEN d.last_error_code = 'WEBHOOK_URL_MISSING' THEN 'unsent' WHEN d.result IN ('exhausted', 'blocked') THEN 'failed' WHEN d.series_attempts > 0 THEN 'retrying' ELSE 'pending' END) AS `state` FROM `deliveries` AS d
  UNION ALL
  SELECT d.shop_id, strftime('%Y-%m-%d', (d.occurred_at + 10800000) / 1000, 'unixepoch'), 'first_sent' FROM `deliveries` AS d JOIN `attempts` AS a ON a.delivery_id = d.id AND a.series = 1 AND a.attempt = 1 WHERE coalesce(a.error_code, '') <> 'WEBHOOK_URL_MISSING'
  UNION ALL
  SELECT d.shop_id, strftime('%Y-%m-%d', (d.occurred_at + 10800000) / 1000, 'unixepoch'), 'first_delivered' FROM `deliveries` AS d JOIN `attempts` AS a ON a.delivery_id = d.id AND a.series = 1 AND a.attempt = 1 WHERE a.error_code IS NULL
) GROUP BY 1, 2, 3;
