-- Hand-written: intake inserts a batch of deliveries in one statement, and counting each row in the
-- health rollup was one upsert per row inside it. A statement trigger counts the inserted rows once
-- per (shop, day, state) cell, in that order, so two replicas' batches take the cells in one order.
CREATE FUNCTION deliveries_health_inserted() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO delivery_health_daily AS h (shop_id, day, state, count)
  SELECT shop_id, delivery_health_day(occurred_at), delivery_health_state(result, series, series_attempts), count(*)
  FROM inserted GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (shop_id, day, state) DO UPDATE SET count = h.count + excluded.count;
  RETURN NULL;
END
$$;
--> statement-breakpoint
-- The row trigger now counts changes only (0001's function without its INSERT branch).
DROP TRIGGER deliveries_health ON deliveries;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION deliveries_health() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  new_state text := delivery_health_state(NEW.result, NEW.series, NEW.series_attempts);
  new_day text := delivery_health_day(NEW.occurred_at);
  old_state text := delivery_health_state(OLD.result, OLD.series, OLD.series_attempts);
  old_day text := delivery_health_day(OLD.occurred_at);
BEGIN
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
CREATE TRIGGER deliveries_health AFTER UPDATE OF result, series, series_attempts, occurred_at, shop_id ON deliveries
  FOR EACH ROW EXECUTE FUNCTION deliveries_health();
--> statement-breakpoint
CREATE TRIGGER deliveries_health_inserted AFTER INSERT ON deliveries REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION deliveries_health_inserted();
