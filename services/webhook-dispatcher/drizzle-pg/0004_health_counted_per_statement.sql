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
-- The row trigger now counts changes only; its function (0001) keeps an INSERT branch that no
-- longer runs, left there rather than written out again here.
DROP TRIGGER deliveries_health ON deliveries;
--> statement-breakpoint
CREATE TRIGGER deliveries_health AFTER UPDATE OF result, series, series_attempts, occurred_at, shop_id ON deliveries
  FOR EACH ROW EXECUTE FUNCTION deliveries_health();
--> statement-breakpoint
CREATE TRIGGER deliveries_health_inserted AFTER INSERT ON deliveries REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION deliveries_health_inserted();
