import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openPgStore, openStore } from "@payaccept/platform";
import { ENGINES, storesPerFile } from "../../../../tests/harness/engines.ts";
import { migrationsBefore } from "../../../../tests/harness/migrations.ts";
import { openDeliveryStore } from "./open-delivery-store.ts";
import { schema as pgSchema } from "./schema.pg.ts";
import { schema } from "./schema.sqlite.ts";

const stores = storesPerFile();
const MIGRATION = "health_unsent_first_kept";

/** Deliveries of shop S stored before the migration, each with the attempts that made its state. */
const ROWS = `
INSERT INTO deliveries (id, shop_id, payment_id, status, order_id, body, occurred_at, created_at, series, queued_series, series_attempts, result, last_error_code, updated_at) VALUES
  ('d-1', 'S', 'p-1', 'SUCCESS', 'o-1', '{}', 1000, 1000, 1, 1, 1, 'delivered', NULL, 1000),
  ('d-2', 'S', 'p-2', 'SUCCESS', 'o-2', '{}', 1000, 1000, 2, 2, 0, 'pending', NULL, 1000),
  ('d-3', 'S', 'p-3', 'SUCCESS', 'o-3', '{}', 1000, 1000, 1, 1, 2, 'exhausted', 'WEBHOOK_URL_MISSING', 1000),
  ('d-4', 'S', 'p-4', 'SUCCESS', 'o-4', '{}', 1000, 1000, 1, 1, 2, 'delivered', NULL, 1000),
  ('d-5', 'S', 'p-5', 'SUCCESS', 'o-5', '{}', 1000, 1000, 1, 1, 1, 'pending', 'WEBHOOK_HTTP_STATUS', 1000);
INSERT INTO attempts (delivery_id, series, attempt, started_at, duration_ms, http_status, error_code) VALUES
  ('d-1', 1, 1, 1100, 5, 200, NULL),
  ('d-2', 1, 1, 1100, 5, 200, NULL),
  ('d-3', 1, 1, 1100, 0, NULL, 'WEBHOOK_URL_MISSING'),
  ('d-3', 1, 2, 1200, 0, NULL, 'WEBHOOK_URL_MISSING'),
  ('d-4', 1, 1, 1100, 5, 500, 'WEBHOOK_HTTP_STATUS'),
  ('d-4', 1, 2, 1200, 5, 200, NULL),
  ('d-5', 1, 1, 1100, 5, 500, 'WEBHOOK_HTTP_STATUS');
`;

describe.each(ENGINES)("the health rollup migration on %s", (engine) => {
  test("rebuilds the rollup of the deliveries stored before it: first attempts from the attempts, no URL as unsent", async () => {
    const choice = await stores.next(engine, "webhooks.db");
    if (choice.engine === "sqlite") {
      const old = openStore(choice.path, schema, migrationsBefore(join(import.meta.dir, "../../drizzle"), MIGRATION));
      old.sqlite.run(ROWS);
      old.sqlite.close();
    } else {
      const old = await openPgStore(choice, pgSchema, migrationsBefore(join(import.meta.dir, "../../drizzle-pg"), MIGRATION));
      await old.client.unsafe(ROWS);
      await old.close();
    }
    const store = await openDeliveryStore(choice);
    // d-1 and d-2 (resent since) delivered by their first attempt, d-4 by its second, d-5 retrying after its first: four first attempts sent; d-3 never had a URL.
    expect(await store.health(["S"], "1970-01-01", "1970-01-01")).toMatchObject([
      { shopId: "S", total: 4, firstSent: 4, firstAttempt: 2, delivered: 2, unsent: 1, failed: 0, retrying: 1 },
    ]);
    await store.close();
  });
});
