import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ENGINES, storesPerFile } from "../../../../tests/harness/engines.ts";
import { openDeliveryStore, type DeliveryStore, type NewDelivery } from "./delivery-store.ts";

const stores = storesPerFile();
const SHOP = "shop-1";
const T0 = Date.parse("2026-01-10T10:00:00Z");

const delivery = (paymentId: string, status = "SUCCESS"): NewDelivery => ({
  id: Bun.randomUUIDv7(),
  shopId: SHOP,
  paymentId,
  status,
  orderId: `order-${paymentId}`,
  body: "{}",
  occurredAt: T0,
  createdAt: T0,
});

/**
 * Two replicas on one store, each with its own connection(s): what the dispatcher relies on when
 * they write at once, on the engine's own locks and keys (docs/webhooks.md, "The store on two engines").
 */
describe.each(ENGINES)("two replicas on one store (%s)", (engine) => {
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

  test("the same events taken in by both at once, in opposite orders, are recorded once each", async () => {
    const payments = Array.from({ length: 100 }, (_, i) => `payment-${String(i).padStart(3, "0")}`);
    const [fromA, fromB] = await Promise.all([
      a.insertDeliveries(payments.map((p) => delivery(p))),
      b.insertDeliveries(payments.toReversed().map((p) => delivery(p))),
    ]);
    const createdBy = payments.map((_, i) => Number(fromA[i]) + Number(fromB[payments.length - 1 - i]!));
    expect(createdBy).toEqual(payments.map(() => 1));
    expect(await a.list({ shopId: SHOP, limit: 200 })).toHaveLength(100);
  });

  test("an attempt both log at once is logged once, and only the first moves the series on", async () => {
    const d = delivery("p");
    await a.insertDeliveries([d]);
    const attempt = { deliveryId: d.id, series: 1, attempt: 1, startedAt: T0, durationMs: 10 };
    const [byA, byB] = await Promise.all([
      a.recordAttempt({ ...attempt, httpStatus: 500, error: "HTTP 500" }, { result: "pending", lastError: "HTTP 500", nextAttemptAt: T0 + 60_000, at: T0 }),
      b.recordAttempt({ ...attempt, httpStatus: 200, error: null }, { result: "delivered", lastError: null, nextAttemptAt: null, at: T0 }),
    ]);
    expect(byA !== byB).toBe(true);
    const logged = await b.attemptsOf(d.id);
    expect(logged).toHaveLength(1);
    expect(await a.get(d.id)).toMatchObject({ seriesAttempts: 1, result: byA ? "pending" : "delivered", lastError: logged[0]!.error });
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
});
