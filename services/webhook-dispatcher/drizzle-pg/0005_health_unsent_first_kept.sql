DROP INDEX "deliveries_shop_failing";--> statement-breakpoint
CREATE INDEX "deliveries_shop_failing" ON "deliveries" USING btree ("shop_id","id") WHERE ((result in ('exhausted', 'blocked') or (result = 'pending' and last_error_code is not null)) and coalesce(last_error_code, '') <> 'WEBHOOK_URL_MISSING');--> statement-breakpoint
-- Hand-written: the health rollup's cells are redefined (schema.ts, HEALTH_STATES): a delivery whose
-- shop has no webhook URL is "unsent", not failed; how the first attempt went is counted once, when
-- attempt 1 of series 1 is logged, in cells a resend or a replay never moves. The triggers keep their
-- names and get new functions; the rollup is rebuilt from the deliveries and their first attempts.
CREATE FUNCTION delivery_health_now(result text, last_error_code text, series_attempts integer) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN result = 'delivered' THEN 'delivered' WHEN last_error_code = 'WEBHOOK_URL_MISSING' THEN 'unsent' WHEN result IN ('exhausted', 'blocked') THEN 'failed' WHEN series_attempts > 0 THEN 'retrying' ELSE 'pending' END
$$;
--> statement-breakpoint
-- A change moves the delivery from its old cell to its new one and, when it logs the first attempt
-- of series 1, counts that attempt. Every cell it touches is written by one statement in (shop, day,
-- state) order, so two transactions never wait on each other's cells in a cycle.
CREATE OR REPLACE FUNCTION deliveries_health() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  old_state text := delivery_health_now(OLD.result, OLD.last_error_code, OLD.series_attempts);
  new_state text := delivery_health_now(NEW.result, NEW.last_error_code, NEW.series_attempts);
  old_day text := delivery_health_day(OLD.occurred_at);
  new_day text := delivery_health_day(NEW.occurred_at);
  moved boolean := (OLD.shop_id, old_day, old_state) IS DISTINCT FROM (NEW.shop_id, new_day, new_state);
  first_sent boolean := OLD.series = 1 AND OLD.series_attempts = 0 AND NEW.series = 1 AND NEW.series_attempts = 1
    AND coalesce(NEW.last_error_code, '') <> 'WEBHOOK_URL_MISSING';
BEGIN
  INSERT INTO delivery_health_daily AS h (shop_id, day, state, count)
  SELECT c.shop_id, c.day, c.state, c.delta
  FROM (VALUES
    (OLD.shop_id, old_day, old_state, -1, moved),
    (NEW.shop_id, new_day, new_state, 1, moved),
    (NEW.shop_id, new_day, 'first_sent', 1, first_sent),
    (NEW.shop_id, new_day, 'first_delivered', 1, first_sent AND NEW.result = 'delivered')
  ) AS c(shop_id, day, state, delta, counted)
  WHERE c.counted
  ORDER BY c.shop_id, c.day, c.state
  ON CONFLICT (shop_id, day, state) DO UPDATE SET count = h.count + excluded.count;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION deliveries_health_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO delivery_health_daily AS h (shop_id, day, state, count)
  SELECT shop_id, delivery_health_day(occurred_at), delivery_health_now(result, last_error_code, series_attempts), count(*)
  FROM inserted GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (shop_id, day, state) DO UPDATE SET count = h.count + excluded.count;
  RETURN NULL;
END
$$;
--> statement-breakpoint
DROP TRIGGER deliveries_health ON deliveries;
--> statement-breakpoint
CREATE TRIGGER deliveries_health AFTER UPDATE OF result, series, series_attempts, last_error_code ON deliveries
  FOR EACH ROW EXECUTE FUNCTION deliveries_health();
--> statement-breakpoint
DROP FUNCTION delivery_health_state(text, integer, integer);
--> statement-breakpoint
-- The whole rollup from the rows: here, and after a move from SQLite has copied its deliveries and
-- attempts (delivery-store.ts), whose inserts counted only each delivery's present state.
CREATE FUNCTION delivery_health_rebuild() RETURNS void LANGUAGE sql SET search_path FROM CURRENT AS $$
  DELETE FROM delivery_health_daily;
  INSERT INTO delivery_health_daily (shop_id, day, state, count)
  SELECT shop_id, day, state, count(*) FROM (
    SELECT shop_id, delivery_health_day(occurred_at) AS day, delivery_health_now(result, last_error_code, series_attempts) AS state FROM deliveries
    UNION ALL
    SELECT d.shop_id, delivery_health_day(d.occurred_at), 'first_sent' FROM deliveries d JOIN attempts a ON a.delivery_id = d.id AND a.series = 1 AND a.attempt = 1
    WHERE coalesce(a.error_code, '') <> 'WEBHOOK_URL_MISSING'
    UNION ALL
    SELECT d.shop_id, delivery_health_day(d.occurred_at), 'first_delivered' FROM deliveries d JOIN attempts a ON a.delivery_id = d.id AND a.series = 1 AND a.attempt = 1
    WHERE a.error_code IS NULL
  ) cells GROUP BY 1, 2, 3;
$$;
--> statement-breakpoint
SELECT delivery_health_rebuild();
