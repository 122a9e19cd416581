import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { failure } from "@payaccept/contracts";
import { openDeliveryStore, type NewDelivery } from "./delivery-store.ts";

const dir = mkdtempSync(join(tmpdir(), "delivery-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const delivery = (n: number, shopId: string, status: string, occurredAt: number): NewDelivery => ({
  id: `d-${String(n).padStart(3, "0")}`,
  shopId,
  paymentId: `p-${n}`,
  status,
  orderId: `o-${n}`,
  body: "{}",
  occurredAt,
  createdAt: occurredAt,
});

test("the log's filters (status, failing only, order) and the health figures per shop", () => {
  const store = openDeliveryStore(join(dir, "webhooks.db"));
  store.insertDeliveries([
    delivery(1, "A", "SUCCESS", 1000),
    delivery(2, "A", "CANCELED", 1001),
    delivery(3, "A", "SUCCESS", 1002),
    delivery(4, "A", "SUCCESS", 1003),
    delivery(5, "B", "SUCCESS", 1004),
    delivery(6, "A", "SUCCESS", 1000 + 2 * 86_400_000),
  ]);
  const attempt = (id: string, n: number, httpStatus: number, result: "delivered" | "pending" | "exhausted") =>
    store.recordAttempt(
      { deliveryId: id, series: 1, attempt: n, startedAt: 1100 + n, durationMs: 5, httpStatus, error: httpStatus === 200 ? null : failure("WEBHOOK_HTTP_STATUS", { httpStatus }) },
      { result, lastError: httpStatus === 200 ? null : failure("WEBHOOK_HTTP_STATUS", { httpStatus }), nextAttemptAt: result === "pending" ? 5000 : null, at: 1100 + n },
    );
  attempt("d-001", 1, 200, "delivered");
  attempt("d-002", 1, 500, "pending");
  attempt("d-002", 2, 200, "delivered");
  attempt("d-003", 1, 500, "exhausted");
  attempt("d-004", 1, 503, "pending");
  attempt("d-005", 1, 200, "delivered");

  const ids = (q: Partial<Parameters<typeof store.list>[0]>) => store.list({ shopId: "A", limit: 50, ...q }).map((d) => d.delivery.id);
  expect(ids({})).toEqual(["d-006", "d-004", "d-003", "d-002", "d-001"]);
  expect(ids({ status: "CANCELED" })).toEqual(["d-002"]);
  expect(ids({ failedOnly: true })).toEqual(["d-004", "d-003"]);
  expect(ids({ failedOnly: true, status: "SUCCESS", before: "d-004" })).toEqual(["d-003"]);
  expect(ids({ orderId: "o-1" })).toEqual(["d-001"]);

  // Every event above but d-006 occurred on 1970-01-01 in Moscow; d-006 two days later.
  const day1 = "1970-01-01";
  expect(store.health(["A", "B"], day1, day1)).toEqual([
    { shopId: "A", total: 4, firstAttempt: 1, delivered: 2, failed: 1, retrying: 1, lastError: failure("WEBHOOK_HTTP_STATUS", { httpStatus: 503 }) },
    { shopId: "B", total: 1, firstAttempt: 1, delivered: 1, failed: 0, retrying: 0, lastError: null },
  ]);
  expect(store.health(["A"], "1970-01-03", "1970-01-31")).toEqual([{ shopId: "A", total: 1, firstAttempt: 0, delivered: 0, failed: 0, retrying: 0, lastError: null }]);
  expect(store.health(["B"], "1970-01-02", "1970-01-02")).toEqual([]);
  // The rollup follows every change of a delivery, one by one (resend) or in bulk (replay).
  store.restart("A", "d-003", 2000);
  expect(store.health(["A"], day1, day1)[0]).toMatchObject({ total: 4, delivered: 2, failed: 0, retrying: 1 });
  store.recordAttempt(
    { deliveryId: "d-003", series: 2, attempt: 1, startedAt: 2001, durationMs: 5, httpStatus: 200, error: null },
    { result: "delivered", lastError: null, nextAttemptAt: null, at: 2001 },
  );
  expect(store.health(["A"], day1, day1)[0]).toMatchObject({ total: 4, firstAttempt: 1, delivered: 3, failed: 0 });
  store.restartSince("A", 0, 3000);
  expect(store.health(["A"], day1, day1)[0]).toMatchObject({ total: 4, firstAttempt: 0, delivered: 0, failed: 0, retrying: 0 });

  const sqlite = new Database(join(dir, "webhooks.db"), { readonly: true });
  const plan = (where: string) => sqlite.query(`EXPLAIN QUERY PLAN SELECT id FROM deliveries WHERE ${where} ORDER BY id DESC LIMIT 20`).all().map((r) => (r as { detail: string }).detail).join("; ");
  expect(plan("shop_id = 'A' AND status = 'SUCCESS'")).toContain("deliveries_shop_status_id");
  expect(plan("shop_id = 'A' AND order_id = 'o-1'")).toContain("deliveries_shop_order_id");
  expect(plan("shop_id = 'A' AND (result in ('exhausted', 'blocked') or (result = 'pending' and last_error_code is not null))")).toContain("deliveries_shop_failing");
  sqlite.close();
  store.close();
});
