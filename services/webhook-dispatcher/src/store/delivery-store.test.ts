import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { ENGINES, storesPerFile } from "../../../../tests/harness/engines.ts";
import { failure, type DeliveryHealth } from "@payaccept/contracts";
import { failureFields } from "../delivery-view.ts";
import { openDeliveryStore } from "./open-delivery-store.ts";
import type { DeliveryStore, NewDelivery } from "./delivery-store.ts";
import { failureColumns, lastErrorColumns } from "./failure-columns.ts";
import { FAILING } from "./schema.ts";

const http = (httpStatus: number) => failure("WEBHOOK_HTTP_STATUS", { httpStatus });

const stores = storesPerFile();
const SHOP = "shop-1";
const T0 = Date.parse("2026-01-10T10:00:00Z");

const delivery = (paymentId: string, status = "SUCCESS", shopId = SHOP): NewDelivery => ({
  id: Bun.randomUUIDv7(),
  shopId,
  paymentId,
  status,
  orderId: `order-${paymentId}`,
  body: "{}",
  occurredAt: T0,
  createdAt: T0,
});

/** Deliveries d-001, d-002, … with fixed ids, so that the log's order (by id) is known. */
const numbered = (n: number, shopId: string, status: string, occurredAt: number): NewDelivery => ({
  id: `d-${String(n).padStart(3, "0")}`,
  shopId,
  paymentId: `p-${n}`,
  status,
  orderId: `o-${n}`,
  body: "{}",
  occurredAt,
  createdAt: occurredAt,
});

/**
 * Most tests use two stores on one database, as two replicas would, each with its own
 * connection(s): what the dispatcher relies on when they write at once, on the engine's own locks
 * and keys (docs/webhooks.md, "The store on two engines").
 */
describe.each(ENGINES)("the delivery store on %s", (engine) => {
  let a: DeliveryStore;
  let b: DeliveryStore;
  beforeEach(async () => {
    const choice = await stores.next(engine, "webhooks.db");
    a = await openDeliveryStore(choice);
    b = await openDeliveryStore(choice);
  });
  afterEach(async () => {
    await a.close();
    await b.close();
  });

  test("the same events of many shops taken in by both at once, in opposite orders, are recorded once each", async () => {
    const payments = Array.from({ length: 100 }, (_, i) => `payment-${String(i).padStart(3, "0")}`);
    const shopOf = (i: number) => `shop-${i % 7}`;
    const [fromA, fromB] = await Promise.all([
      a.insertDeliveries(payments.map((p, i) => delivery(p, "SUCCESS", shopOf(i)))),
      b.insertDeliveries(payments.map((p, i) => delivery(p, "SUCCESS", shopOf(i))).toReversed()),
    ]);
    const createdBy = payments.map((_, i) => Number(fromA[i]) + Number(fromB[payments.length - 1 - i]!));
    expect(createdBy).toEqual(payments.map(() => 1));
    const shops = [...new Set(payments.map((_, i) => shopOf(i)))];
    const perShop = await Promise.all(shops.map(async (shopId) => (await a.list({ shopId, limit: 200 })).length));
    expect(perShop.reduce((x, y) => x + y, 0)).toBe(100);
    const day = new Date(T0 + 3 * 3_600_000).toISOString().slice(0, 10);
    expect((await b.health(shops, day, day)).reduce((n, h) => n + h.total, 0)).toBe(100);
  });

  test("a payout's event is one delivery per shop of its account, each recorded once whoever takes it in", async () => {
    const shops = ["shop-a", "shop-b", "shop-c"];
    const [fromA, fromB] = await Promise.all([
      a.insertDeliveries(shops.map((shopId) => delivery("payout-1", "PAYOUT_PAID", shopId))),
      b.insertDeliveries(shops.map((shopId) => delivery("payout-1", "PAYOUT_PAID", shopId))),
    ]);
    expect(shops.map((_, i) => Number(fromA[i]) + Number(fromB[i]))).toEqual([1, 1, 1]);
    expect(await a.insertDeliveries([delivery("payout-1", "PAYOUT_PAID", "shop-b"), delivery("payout-1", "PAYOUT_RETURNED", "shop-b")])).toEqual([false, true]);
    for (const shopId of shops) expect((await b.list({ shopId, paymentId: "payout-1", limit: 10 })).map((d) => d.delivery.status).sort()).toEqual(shopId === "shop-b" ? ["PAYOUT_PAID", "PAYOUT_RETURNED"] : ["PAYOUT_PAID"]);
  });

  test("different events of the same shops taken in by both at once do not wait on each other in a cycle", async () => {
    const shops = Array.from({ length: 7 }, (_, i) => `shop-${i}`);
    // In payment order, A's batch reaches the shops upwards and B's downwards.
    const batch = (prefix: string, shopAt: (i: number) => string) =>
      Array.from({ length: 140 }, (_, i) => delivery(`${prefix}-${String(i).padStart(3, "0")}`, "SUCCESS", shopAt(i)));
    for (let round = 0; round < 30; round++) {
      const [fromA, fromB] = await Promise.all([
        a.insertDeliveries(batch(`a${round}`, (i) => shops[i % 7]!)),
        b.insertDeliveries(batch(`b${round}`, (i) => shops[6 - (i % 7)]!)),
      ]);
      expect([...fromA, ...fromB].every(Boolean)).toBe(true);
    }
    const day = new Date(T0 + 3 * 3_600_000).toISOString().slice(0, 10);
    expect((await a.health(shops, day, day)).reduce((n, h) => n + h.total, 0)).toBe(8400);
  });

  test("an attempt both log at once is logged once, and only the first moves the series on", async () => {
    const d = delivery("p");
    await a.insertDeliveries([d]);
    const attempt = { deliveryId: d.id, series: 1, attempt: 1, startedAt: T0, durationMs: 10 };
    const [byA, byB] = await Promise.all([
      a.recordAttempt({ ...attempt, httpStatus: 500, ...failureColumns(http(500)) }, { result: "pending", ...lastErrorColumns(http(500)), nextAttemptAt: T0 + 60_000, at: T0 }),
      b.recordAttempt({ ...attempt, httpStatus: 200, ...failureColumns(null) }, { result: "delivered", ...lastErrorColumns(null), nextAttemptAt: null, at: T0 }),
    ]);
    expect(byA !== byB).toBe(true);
    const logged = await b.attemptsOf(d.id);
    expect(logged).toHaveLength(1);
    expect(await a.get(d.id)).toMatchObject({ seriesAttempts: 1, result: byA ? "pending" : "delivered", lastErrorCode: logged[0]!.errorCode });
  });

  test("resends at once each start a series of their own; confirming an older series never lowers the mark", async () => {
    const d = delivery("p");
    await a.insertDeliveries([d]);
    const restarted = await Promise.all([a, b, a, b, a].map((s, i) => s.restart(SHOP, d.id, T0 + i)));
    expect(restarted.map((r) => r!.series).sort()).toEqual([2, 3, 4, 5, 6]);
    expect(await b.restart("another-shop", d.id, T0)).toBeUndefined();

    await Promise.all([a.markQueuedMany([{ id: d.id, series: 6 }]), b.markQueuedMany([{ id: d.id, series: 3 }])]);
    expect(await a.get(d.id)).toMatchObject({ series: 6, queuedSeries: 6, result: "pending", seriesAttempts: 0 });
    expect(await b.unqueued(10)).toEqual([]);
  });

  test("a replay and the relay marking the same rows at once both take effect (no lock cycle)", async () => {
    const ds = Array.from({ length: 200 }, (_, i) => delivery(`payment-${i}`));
    await a.insertDeliveries(ds);
    const confirmed = ds.map((d) => ({ id: d.id, series: 1 })).toReversed();
    const [replayed] = await Promise.all([a.restartSince(SHOP, T0, T0 + 1), b.markQueuedMany(confirmed)]);
    expect(replayed).toBe(200);
    // Every row is on series 2 with series 1 confirmed: the replay's series is still to publish.
    const left = await b.unqueued(500);
    expect(left.map((r) => r.series)).toEqual(ds.map(() => 2));
    expect(new Set(left.map((r) => r.id))).toEqual(new Set(ds.map((d) => d.id)));
    expect(await a.requeuePending()).toBe(200);
  });

  test("the log's filters (status, failing only, order) and the health figures per shop", async () => {
    const store = a;
    await store.insertDeliveries([
      numbered(1, "A", "SUCCESS", 1000),
      numbered(2, "A", "CANCELED", 1001),
      numbered(3, "A", "SUCCESS", 1002),
      numbered(4, "A", "SUCCESS", 1003),
      numbered(5, "B", "SUCCESS", 1004),
      numbered(6, "A", "SUCCESS", 1000 + 2 * 86_400_000),
    ]);
    const attempt = (id: string, n: number, httpStatus: number, result: "delivered" | "pending" | "exhausted") =>
      store.recordAttempt(
        { deliveryId: id, series: 1, attempt: n, startedAt: 1100 + n, durationMs: 5, httpStatus, ...failureColumns(httpStatus === 200 ? null : http(httpStatus)) },
        { result, ...lastErrorColumns(httpStatus === 200 ? null : http(httpStatus)), nextAttemptAt: result === "pending" ? 5000 : null, at: 1100 + n },
      );
    await attempt("d-001", 1, 200, "delivered");
    await attempt("d-002", 1, 500, "pending");
    await attempt("d-002", 2, 200, "delivered");
    await attempt("d-003", 1, 500, "exhausted");
    await attempt("d-004", 1, 503, "pending");
    await attempt("d-005", 1, 200, "delivered");

    const ids = async (q: Partial<Parameters<typeof store.list>[0]>) => (await store.list({ shopId: "A", limit: 50, ...q })).map((d) => d.delivery.id);
    expect(await ids({})).toEqual(["d-006", "d-004", "d-003", "d-002", "d-001"]);
    expect(await ids({ status: "CANCELED" })).toEqual(["d-002"]);
    expect(await ids({ failedOnly: true })).toEqual(["d-004", "d-003"]);
    expect(await ids({ failedOnly: true, status: "SUCCESS", before: "d-004" })).toEqual(["d-003"]);
    expect(await ids({ orderId: "o-1" })).toEqual(["d-001"]);

    // Every event above but d-006 occurred on 1970-01-01 in Moscow; d-006 two days later.
    const day1 = "1970-01-01";
    const figures = (f: Partial<DeliveryHealth> & { shopId: string }): DeliveryHealth => ({
      total: 0,
      firstSent: 0,
      firstAttempt: 0,
      delivered: 0,
      unsent: 0,
      failed: 0,
      retrying: 0,
      ...failureFields(null, "lastError"),
      ...f,
    });
    expect(await store.health(["A", "B"], day1, day1)).toEqual([
      figures({ shopId: "A", total: 4, firstSent: 4, firstAttempt: 1, delivered: 2, failed: 1, retrying: 1, ...failureFields(http(503), "lastError") }),
      figures({ shopId: "B", total: 1, firstSent: 1, firstAttempt: 1, delivered: 1 }),
    ]);
    expect(await store.health(["A"], "1970-01-03", "1970-01-31")).toEqual([figures({ shopId: "A", total: 1 })]);
    expect(await store.health(["B"], "1970-01-02", "1970-01-02")).toEqual([]);
    // The rollup follows every change of a delivery, one by one (resend) or in bulk (replay).
    await store.restart("A", "d-003", 2000);
    expect((await store.health(["A"], day1, day1))[0]).toMatchObject({ total: 4, delivered: 2, failed: 0, retrying: 1 });
    await store.recordAttempt(
      { deliveryId: "d-003", series: 2, attempt: 1, startedAt: 2001, durationMs: 5, httpStatus: 200, ...failureColumns(null) },
      { result: "delivered", ...lastErrorColumns(null), nextAttemptAt: null, at: 2001 },
    );
    expect((await store.health(["A"], day1, day1))[0]).toMatchObject({ total: 4, firstSent: 4, firstAttempt: 1, delivered: 3, failed: 0 });
    // How each event's first attempt went stays as it was: a resend of the delivered d-001, then a
    // replay of them all, move the deliveries but never the first-attempt share.
    await store.restart("A", "d-001", 2500);
    expect((await store.health(["A"], day1, day1))[0]).toMatchObject({ total: 4, firstSent: 4, firstAttempt: 1, delivered: 2, retrying: 1 });
    await store.restartSince("A", 0, 3000);
    expect((await store.health(["A"], day1, day1))[0]).toMatchObject({ total: 4, firstSent: 4, firstAttempt: 1, delivered: 0, failed: 0, retrying: 0 });
  });

  test("without a webhook URL a delivery is unsent: not failing, not in the first-attempt share, and delivered once a URL is set", async () => {
    const store = a;
    await store.insertDeliveries([numbered(11, "C", "SUCCESS", 1000), numbered(12, "C", "SUCCESS", 1001), numbered(21, "D", "SUCCESS", 1002), numbered(22, "D", "SUCCESS", 1003)]);
    const noUrl = failure("WEBHOOK_URL_MISSING");
    const attempt = (id: string, n: number, error: ReturnType<typeof failure> | null, result: "delivered" | "pending" | "exhausted") =>
      store.recordAttempt(
        { deliveryId: id, series: 1, attempt: n, startedAt: 1100 + n, durationMs: 0, httpStatus: error ? null : 200, ...failureColumns(error) },
        { result, ...lastErrorColumns(error), nextAttemptAt: result === "pending" ? 5000 : null, at: 1100 + n },
      );
    await attempt("d-011", 1, noUrl, "pending");
    await attempt("d-012", 1, noUrl, "exhausted");
    await attempt("d-021", 1, http(500), "exhausted");
    await attempt("d-022", 1, noUrl, "pending");
    const day = "1970-01-01";
    expect(await store.health(["C", "D"], day, day)).toEqual([
      { shopId: "C", total: 0, firstSent: 0, firstAttempt: 0, delivered: 0, unsent: 2, failed: 0, retrying: 0, ...failureFields(null, "lastError") },
      // D's latest error is its endpoint's HTTP 500, not the newer delivery that found no URL.
      { shopId: "D", total: 1, firstSent: 1, firstAttempt: 0, delivered: 0, unsent: 1, failed: 1, retrying: 0, ...failureFields(http(500), "lastError") },
    ]);
    const failing = async (shopId: string) => (await store.list({ shopId, limit: 50, failedOnly: true })).map((d) => d.delivery.id);
    expect(await failing("C")).toEqual([]);
    expect(await failing("D")).toEqual(["d-021"]);
    // A URL set within the retry window: the next attempt delivers; the first attempt was not sent, so the share is unchanged.
    await attempt("d-011", 2, null, "delivered");
    expect((await store.health(["C"], day, day))[0]).toMatchObject({ total: 1, firstSent: 0, firstAttempt: 0, delivered: 1, unsent: 1 });
  });
});

test("on SQLite, each filter of the log is served by its index", async () => {
  const choice = await stores.next("sqlite", "webhooks.db");
  if (choice.engine !== "sqlite") throw new Error("a SQLite store was asked for");
  const store = await openDeliveryStore(choice);
  const sqlite = new Database(choice.path, { readonly: true });
  const plan = (where: string) => sqlite.query(`EXPLAIN QUERY PLAN SELECT id FROM deliveries WHERE ${where} ORDER BY id DESC LIMIT 20`).all().map((r) => (r as { detail: string }).detail).join("; ");
  expect(plan("shop_id = 'A' AND status = 'SUCCESS'")).toContain("deliveries_shop_status_id");
  expect(plan("shop_id = 'A' AND order_id = 'o-1'")).toContain("deliveries_shop_order_id");
  expect(plan(`shop_id = 'A' AND ${new SQLiteSyncDialect().sqlToQuery(FAILING).sql}`)).toContain("deliveries_shop_failing");
  sqlite.close();
  await store.close();
});

test("a move to PostgreSQL copies webhooks.db once: deliveries, attempts and schedules as they were, the rollup rebuilt", async () => {
  const file = await stores.next("sqlite", "webhooks.db");
  if (file.engine !== "sqlite") throw new Error("a SQLite store was asked for");
  const old = await openDeliveryStore(file);
  await old.insertDeliveries([numbered(1, "A", "SUCCESS", 1000), numbered(2, "A", "CANCELED", 1001)]);
  await old.recordAttempt(
    { deliveryId: "d-001", series: 1, attempt: 1, startedAt: 1100, durationMs: 5, httpStatus: 503, ...failureColumns(http(503)) },
    { result: "pending", ...lastErrorColumns(http(503)), nextAttemptAt: 61_100, at: 1100 },
  );
  await old.markQueuedMany([{ id: "d-001", series: 1 }]);
  const before = await old.list({ shopId: "A", limit: 10 });
  await old.close();

  const moved = await openDeliveryStore(await stores.next("postgres", "webhooks.db"), { importFrom: file.path });
  expect(await moved.list({ shopId: "A", limit: 10 })).toEqual(before);
  expect(await moved.unqueued(10)).toEqual([{ id: "d-002", shopId: "A", series: 1, traceContext: null }]);
  expect(await moved.health(["A"], "1970-01-01", "1970-01-01")).toEqual([
    { shopId: "A", total: 2, firstSent: 1, firstAttempt: 0, delivered: 0, unsent: 0, failed: 0, retrying: 1, ...failureFields(http(503), "lastError") },
  ]);
  await moved.close();

  // The file is marked: a store lost later is never refilled from that old snapshot.
  const again = await openDeliveryStore(await stores.next("postgres", "webhooks.db"), { importFrom: file.path });
  expect(await again.list({ shopId: "A", limit: 10 })).toEqual([]);
  await again.close();
});
