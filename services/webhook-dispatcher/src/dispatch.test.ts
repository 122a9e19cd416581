import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { failure, type PaymentEvent, type ShopRecord } from "@payaccept/contracts";
import { createLogger } from "@payaccept/platform";
import { paymentEvent, shopRecord } from "../test-support/fixtures.ts";
import type { AttemptOutcome } from "./delivery/send.ts";
import { createDispatcher, type DispatchDeps } from "./dispatch.ts";
import { paymentEventRecorder, recordPaymentEvents } from "./intake.ts";
import { ENGINES, storesPerFile } from "../../../tests/harness/engines.ts";
import { eventually } from "../../../tests/harness/stack.ts";
import { ShopConcurrency } from "./shop-concurrency.ts";
import { openDeliveryStore } from "./store/open-delivery-store.ts";
import type { DeliveryStore } from "./store/delivery-store.ts";
import { failureColumns, lastErrorColumns } from "./store/failure-columns.ts";

const DELAYS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 86_400_000];
const http500 = failure("WEBHOOK_HTTP_STATUS", { httpStatus: 500 });
const failed: AttemptOutcome = { kind: "failed", httpStatus: 503, error: failure("WEBHOOK_HTTP_STATUS", { httpStatus: 503 }), durationMs: 40 };
const delivered: AttemptOutcome = { kind: "delivered", httpStatus: 200, durationMs: 30 };

const stores = storesPerFile();

describe.each(ENGINES)("on %s", (engine) => {
  let store: DeliveryStore;
  let clock: { t: number };
  let shops: Map<string, ShopRecord>;
  let sent: { url: string; body: string }[];
  let outcomes: AttemptOutcome[];

  beforeEach(async () => {
    store = await openDeliveryStore(await stores.next(engine, "webhooks.db"));
    clock = { t: Date.parse("2026-01-10T10:00:00Z") };
    shops = new Map();
    sent = [];
    outcomes = [];
  });
  afterEach(() => store.close());

  function dispatcher(overrides: Partial<DispatchDeps> = {}) {
    return createDispatcher({
      store,
      shop: (id) => shops.get(id),
      concurrency: new ShopConcurrency({ perShop: 1, initialEstimateMs: 100, minDeferralMs: 100, maxDeferralMs: 30_000, now: () => clock.t }),
      send: async (req) => {
        sent.push(req);
        return outcomes.shift() ?? delivered;
      },
      retryDelays: DELAYS,
      random: () => 0,
      now: () => clock.t,
      log: createLogger("test", "silent"),
      ...overrides,
    });
  }

  function addShop(fields: Partial<ShopRecord> = { webhookUrl: "https://shop.example.com/h" }): ShopRecord {
    const shop = shopRecord(fields);
    shops.set(shop.shopId, shop);
    return shop;
  }

  async function newDelivery(shop: ShopRecord = addShop()) {
    const event = paymentEvent(shop);
    expect(await recordPaymentEvents(store, [event], clock.t)).toEqual([true]);
    const id = (await store.list({ shopId: shop.shopId, paymentId: event.paymentId, limit: 1 }))[0]!.delivery.id;
    return { shop, event, id, cmd: { deliveryId: id, series: 1 } };
  }

  describe("the schedule lives in the store", () => {
    test("seven failures at the schedule's pauses, then exhausted; early redeliveries wait out the rest", async () => {
      const dispatch = dispatcher();
      const { cmd, id } = await newDelivery();
      outcomes = Array(7).fill(failed);

      for (let n = 1; n <= 7; n++) {
        const disposition = await dispatch(cmd);
        expect(disposition).toEqual(n < 7 ? { kind: "nak", delayMs: DELAYS[n - 1]! } : { kind: "ack" });
        if (n < 7) {
          // JetStream hands the message back early (an ack wait after a crash): nothing is sent.
          clock.t += 1000;
          expect(await dispatch(cmd)).toEqual({ kind: "nak", delayMs: DELAYS[n - 1]! - 1000 });
          clock.t += DELAYS[n - 1]! - 1000;
        }
      }
      expect(sent).toHaveLength(7);
      expect(await store.get(id)).toMatchObject({ result: "exhausted", seriesAttempts: 7, lastErrorCode: "WEBHOOK_HTTP_STATUS", nextAttemptAt: null });
      expect((await store.attemptsOf(id)).map((a) => [a.attempt, a.httpStatus])).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => [n, 503]));
    });

    test("a message for a finished, superseded or unknown series is acked without sending", async () => {
      const dispatch = dispatcher();
      const { cmd, id, shop } = await newDelivery();
      expect(await dispatch(cmd)).toEqual({ kind: "ack" });
      expect(await dispatch(cmd)).toEqual({ kind: "ack" }); // redelivered after a crash before the ack
      await store.restart(shop.shopId, id, clock.t);
      expect(await dispatch(cmd)).toEqual({ kind: "ack" }); // series 1 was superseded by series 2
      expect(await dispatch({ deliveryId: "no-such-delivery", series: 1 })).toEqual({ kind: "ack" });
      expect(sent).toHaveLength(1);
      expect(await dispatch({ deliveryId: id, series: 2 })).toEqual({ kind: "ack" });
      expect((await store.attemptsOf(id)).map((a) => [a.series, a.attempt])).toEqual([
        [1, 1],
        [2, 1],
      ]);
    });

    test("every attempt sends the stored body unchanged", async () => {
      const dispatch = dispatcher();
      const { cmd, event } = await newDelivery();
      outcomes = [failed, failed];
      await dispatch(cmd);
      clock.t += DELAYS[0]!;
      await dispatch(cmd);
      clock.t += DELAYS[1]!;
      await dispatch(cmd);
      expect(sent.map((s) => s.body)).toEqual(Array(3).fill(sent[0]!.body));
      expect(JSON.parse(sent[0]!.body)).toMatchObject({ id: event.paymentId, orderId: event.orderId, test: false });
    });
  });

  describe("what counts as an attempt", () => {
    test("a saturated shop defers its deliveries without using up attempts; other shops go on", async () => {
      let unblock!: () => void;
      const blocked = new Promise<AttemptOutcome>((resolve) => (unblock = () => resolve(delivered)));
      const dispatch = dispatcher({ send: (req) => (sent.push(req), sent.length === 1 ? blocked : Promise.resolve(delivered)) });
      const first = await newDelivery();
      const second = await newDelivery(first.shop);
      const other = await newDelivery();

      const inFlight = dispatch(first.cmd);
      await eventually(() => sent.length === 1);
      const deferred = await dispatch(second.cmd);
      expect(deferred.kind).toBe("nak");
      expect(deferred.kind === "nak" && deferred.delayMs).toBeGreaterThanOrEqual(100);
      expect((await store.get(second.id))!.seriesAttempts).toBe(0);
      expect(await dispatch(other.cmd)).toEqual({ kind: "ack" });

      unblock();
      expect(await inFlight).toEqual({ kind: "ack" });
      expect(await dispatch(second.cmd)).toEqual({ kind: "ack" });
      expect(await store.attemptsOf(second.id)).toHaveLength(1);
    });

    test("a second copy of a message this process is working on is left alone, also while its row is being read", async () => {
      let finish!: () => void;
      const { promise: sending, resolve: started } = Promise.withResolvers<void>();
      const dispatch = dispatcher({
        send: () =>
          new Promise((resolve) => {
            finish = () => resolve(delivered);
            started();
          }),
      });
      const { cmd } = await newDelivery();
      const first = dispatch(cmd);
      expect(await dispatch(cmd)).toEqual({ kind: "leave" });
      await sending;
      expect(await dispatch(cmd)).toEqual({ kind: "leave" });
      finish();
      expect(await first).toEqual({ kind: "ack" });
    });

    test("an attempt another copy logged first is not logged twice; its state is followed", async () => {
      const { cmd, id } = await newDelivery();
      const dispatch = dispatcher({
        send: async () => {
          // Another replica got a redelivered copy and logged attempt 1 while this one was sending.
          await store.recordAttempt(
            { deliveryId: id, series: 1, attempt: 1, startedAt: clock.t, durationMs: 5, httpStatus: 500, ...failureColumns(http500) },
            { result: "pending", ...lastErrorColumns(http500), nextAttemptAt: clock.t + DELAYS[0]!, at: clock.t },
          );
          return delivered;
        },
      });
      expect(await dispatch(cmd)).toEqual({ kind: "nak", delayMs: DELAYS[0]! });
      expect((await store.attemptsOf(id)).map((a) => a.httpStatus)).toEqual([500]);
      expect((await store.get(id))!.result).toBe("pending");
    });

    test("no webhook URL, or no such shop: failed attempts on the schedule, nothing sent", async () => {
      const dispatch = dispatcher();
      const noUrl = await newDelivery(addShop({ webhookUrl: null }));
      expect(await dispatch(noUrl.cmd)).toEqual({ kind: "nak", delayMs: DELAYS[0]! });
      expect(await store.get(noUrl.id)).toMatchObject({ result: "pending", lastErrorCode: "WEBHOOK_URL_MISSING", lastErrorParams: "{}" });
      expect((await store.attemptsOf(noUrl.id))[0]).toMatchObject({ errorCode: "WEBHOOK_URL_MISSING" });

      const gone = await newDelivery();
      shops.delete(gone.shop.shopId);
      await dispatch(gone.cmd);
      expect((await store.get(gone.id))!.lastErrorCode).toBe("SHOP_NOT_FOUND");
      expect(sent).toHaveLength(0);
    });

    test("a shop the directory cannot be asked about right now: no attempt is counted, the message comes back", async () => {
      const { cmd, id, shop } = await newDelivery();
      let reachable = false;
      const dispatch = dispatcher({
        shop: async (shopId) => {
          if (!reachable) throw new Error("directory bucket: timeout");
          return shops.get(shopId);
        },
      });
      // The consumer loop naks a handler that throws and offers the message again within seconds.
      await expect(dispatch(cmd)).rejects.toThrow("timeout");
      expect(await store.get(id)).toMatchObject({ result: "pending", seriesAttempts: 0 });
      expect(await store.attemptsOf(id)).toHaveLength(0);
      expect(sent).toHaveLength(0);

      reachable = true;
      expect(await dispatch(cmd)).toEqual({ kind: "ack" });
      expect(sent).toEqual([expect.objectContaining({ url: shop.webhookUrl })]);
    });

    test("a blocked address ends the series at once", async () => {
      const dispatch = dispatcher();
      const { cmd, id } = await newDelivery();
      outcomes = [{ kind: "blocked", error: failure("WEBHOOK_ADDRESS_BLOCKED", { host: "shop.example.com" }), durationMs: 2 }];
      expect(await dispatch(cmd)).toEqual({ kind: "ack" });
      expect(await store.get(id)).toMatchObject({ result: "blocked", nextAttemptAt: null });
      expect((await store.attemptsOf(id))[0]).toMatchObject({ httpStatus: null, errorCode: "WEBHOOK_ADDRESS_BLOCKED", errorParams: JSON.stringify({ host: "shop.example.com" }) });
    });
  });

  describe("intake", () => {
    function recorder() {
      const recorded: number[] = [];
      const record = paymentEventRecorder({ store, now: () => clock.t, log: createLogger("test", "silent"), onRecorded: () => recorded.push(clock.t) });
      return { record: (event: PaymentEvent, seq = 1) => record({ event, seq }), recorded };
    }

    test("the same (payment, status) is recorded once; another status of the payment is a new delivery", async () => {
      const shop = shopRecord();
      const event = paymentEvent(shop, { status: "EXPIRED" });
      expect(await recordPaymentEvents(store, [event], clock.t)).toEqual([true]);
      expect(await recordPaymentEvents(store, [{ ...event, eventId: "again" }], clock.t)).toEqual([false]);
      expect(await recordPaymentEvents(store, [{ ...event, status: "SUCCESS", previousStatus: "EXPIRED" }], clock.t)).toEqual([true]);
      expect((await store.list({ shopId: shop.shopId, limit: 10 })).map((d) => d.delivery.status).sort()).toEqual(["EXPIRED", "SUCCESS"]);
    });

    test("a copy within one turn or of an earlier event is not recorded again; only new rows wake the relay", async () => {
      const { record, recorded } = recorder();
      const shop = shopRecord();
      const [a, b] = [paymentEvent(shop, { status: "EXPIRED" }), paymentEvent(shop, { status: "EXPIRED" })];
      expect(await record(a)).toBe(true);
      clock.t += 1;
      expect(await Promise.all([a, b, { ...b, eventId: "copy" }].map((e, i) => record(e, 2 + i)))).toEqual([false, true, false]);
      clock.t += 1;
      expect(await Promise.all([a, b].map((e) => record(e)))).toEqual([false, false]);
      expect(recorded).toEqual([clock.t - 2, clock.t - 1]);
      expect(await store.list({ shopId: shop.shopId, limit: 10 })).toHaveLength(2);
    });

    test("an event the store cannot take fails alone: the rest of its batch is recorded", async () => {
      const { record } = recorder();
      const shop = shopRecord();
      // PostgreSQL's text cannot hold a NUL character (SQLite's can), a real refusal of one row.
      const events = [paymentEvent(shop), paymentEvent(shop, { orderId: "order-\u0000" }), paymentEvent(shop)];
      const outcomes = await Promise.allSettled(events.map((e, i) => record(e, i + 1)));
      expect(outcomes.map((o) => o.status)).toEqual(engine === "postgres" ? ["fulfilled", "rejected", "fulfilled"] : ["fulfilled", "fulfilled", "fulfilled"]);
      const stored = (await store.list({ shopId: shop.shopId, limit: 10 })).map((d) => d.delivery.paymentId);
      expect(stored.sort()).toEqual(events.filter((_, i) => engine === "sqlite" || i !== 1).map((e) => e.paymentId).sort());
    });
  });
});
