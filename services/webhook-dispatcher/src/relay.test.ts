import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createLogger } from "@payaccept/platform";
import { paymentEvent, shopRecord } from "../test-support/fixtures.ts";
import type { DispatchCommand } from "./bus/streams.ts";
import { ENGINES, storesPerFile } from "../../../tests/harness/engines.ts";
import { recordPaymentEvents } from "./intake.ts";
import { createSeriesRelay } from "./relay.ts";
import { openDeliveryStore } from "./store/open-delivery-store.ts";
import type { DeliveryStore } from "./store/delivery-store.ts";

const log = createLogger("test", "silent");
const shop = shopRecord();
const stores = storesPerFile();

describe.each(ENGINES)("series relay on %s", (engine) => {
  let store: DeliveryStore;
  beforeEach(async () => {
    store = await openDeliveryStore(await stores.next(engine, "webhooks.db"));
  });
  afterEach(() => store.close());
  const record = (n: number) => recordPaymentEvents(store, Array.from({ length: n }, () => paymentEvent(shop)), Date.now());

  test("publishes each new series once and marks it queued", async () => {
    const published: DispatchCommand[] = [];
    const relay = createSeriesRelay({ store, publish: async (cmd) => void published.push(cmd), log });
    await record(3);
    await relay.kick();
    await relay.kick();
    expect(published).toHaveLength(3);
    expect(published.every((c) => c.series === 1)).toBe(true);
    expect(await store.unqueued(10)).toEqual([]);
  });

  test("a failed publish leaves the series for the next drain; a resend is a new series", async () => {
    let up = false;
    const published: DispatchCommand[] = [];
    const relay = createSeriesRelay({
      store,
      publish: async (cmd) => {
        if (!up) throw new Error("NATS unavailable");
        published.push(cmd);
      },
      log,
    });
    await record(2);
    await relay.kick();
    expect(published).toEqual([]);
    expect(await store.unqueued(10)).toHaveLength(2);

    up = true;
    await relay.kick();
    expect(published).toHaveLength(2);

    const [first] = published;
    await store.restart(shop.shopId, first!.deliveryId, Date.now());
    await relay.kick();
    expect(published.at(-1)).toEqual({ deliveryId: first!.deliveryId, series: 2 });
  });

  test("kicks during a drain are served by one more drain, not lost", async () => {
    const published: DispatchCommand[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const relay = createSeriesRelay({
      store,
      publish: async (cmd) => {
        await gate;
        published.push(cmd);
      },
      log,
    });
    await record(1);
    const draining = relay.kick();
    await record(1);
    const second = relay.kick();
    release();
    await Promise.all([draining, second]);
    expect(published).toHaveLength(2);
  });
});
