CREATE TABLE "delivery_health_daily" (
	"shop_id" text NOT NULL,
	"day" text NOT NULL,
	"state" text NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "delivery_health_daily_shop_id_day_state_pk" PRIMARY KEY("shop_id","day","state")
);
--> statement-breakpoint
CREATE INDEX "deliveries_shop_status_id" ON "deliveries" USING btree ("shop_id","status","id");--> statement-breakpoint
CREATE INDEX "deliveries_shop_order_id" ON "deliveries" USING btree ("shop_id","order_id","id");--> statement-breakpoint
CREATE INDEX "deliveries_shop_failing" ON "deliveries" USING btree ("shop_id","id") WHERE (result in ('exhausted', 'blocked') or (result = 'pending' and last_error is not null));--> statement-breakpoint
-- Hand-written: the health rollup is kept by a trigger, in the same transaction as every change of a delivery (see schema.pg.ts).
CREATE FUNCTION delivery_health_state(result text, series integer, series_attempts integer) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN result = 'delivered' AND series = 1 AND series_attempts = 1 THEN 'first' WHEN result = 'delivered' THEN 'delivered' WHEN result IN ('exhausted', 'blocked') THEN 'failed' WHEN series_attempts > 0 THEN 'retrying' ELSE 'pending' END
$$;
--> statement-breakpoint
-- The Moscow day (UTC+3, no daylight saving) of an epoch-millisecond moment, as SQLite's strftime gives it.
CREATE FUNCTION delivery_health_day(occurred_at bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(timestamp '1970-01-01' + ((occurred_at + 10800000) / 1000) * interval '1 second', 'YYYY-MM-DD')
$$;
--> statement-breakpoint
-- search_path FROM CURRENT: the tables of this service's schema, whatever the session that writes a delivery has set.
CREATE FUNCTION delivery_health_count(shop text, day text, state text, delta integer) RETURNS void LANGUAGE sql SET search_path FROM CURRENT AS $$
  INSERT INTO delivery_health_daily AS h (shop_id, day, state, count) VALUES (shop, day, state, delta)
  ON CONFLICT (shop_id, day, state) DO UPDATE SET count = h.count + delta
$$;
--> statement-breakpoint
-- The two cells of a change are counted in one order (the state's name), so two transactions
-- moving deliveries between the same two states never wait on each other's cells in a cycle.
CREATE FUNCTION deliveries_health() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  new_state text := delivery_health_state(NEW.result, NEW.series, NEW.series_attempts);
  new_day text := delivery_health_day(NEW.occurred_at);
  old_state text;
  old_day text;
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM delivery_health_count(NEW.shop_id, new_day, new_state, 1);
    RETURN NULL;
  END IF;
  old_state := delivery_health_state(OLD.result, OLD.series, OLD.series_attempts);
  old_day := delivery_health_day(OLD.occurred_at);
  IF (OLD.shop_id, old_day, old_state) IS NOT DISTINCT FROM (NEW.shop_id, new_day, new_state) THEN
    RETURN NULL;
  END IF;
  IF (OLD.shop_id, old_day, old_state) < (NEW.shop_id, new_day, new_state) THEN
    PERFORM delivery_health_count(OLD.shop_id, old_day, old_state, -1);
    PERFORM delivery_health_count(NEW.shop_id, new_day, new_state, 1);
  ELSE
    PERFORM delivery_health_count(NEW.shop_id, new_day, new_state, 1);
    PERFORM delivery_health_count(OLD.shop_id, old_day, old_state, -1);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER deliveries_health AFTER INSERT OR UPDATE OF result, series, series_attempts, occurred_at, shop_id ON deliveries
  FOR EACH ROW EXECUTE FUNCTION deliveries_health();
--> statement-breakpoint
INSERT INTO delivery_health_daily (shop_id, day, state, count)
SELECT shop_id, delivery_health_day(occurred_at), delivery_health_state(result, series, series_attempts), count(*) FROM deliveries GROUP BY 1, 2, 3;
