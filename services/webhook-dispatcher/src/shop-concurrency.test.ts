import { describe, expect, test } from "bun:test";
import { ShopConcurrency } from "./shop-concurrency.ts";

function setup(perShop = 2, wait: { maxWaitMs?: number; maxWaiters?: number } = {}) {
  const clock = { t: 1_000_000 };
  const gate = new ShopConcurrency({
    perShop,
    initialEstimateMs: 100,
    minDeferralMs: 50,
    maxDeferralMs: 30_000,
    ...wait,
    now: () => clock.t,
    random: () => 0.5, // no jitter
  });
  /** One attempt of `ms` that finished, so the gate has seen how long the shop takes. */
  const observe = (shopId: string, ms: number) => {
    const release = gate.tryAcquire(shopId)!;
    clock.t += ms;
    release();
  };
  return { gate, clock, observe };
}

describe("ShopConcurrency", () => {
  test("admits perShop attempts per shop; other shops are unaffected", () => {
    const { gate } = setup(2);
    const a1 = gate.tryAcquire("A");
    const a2 = gate.tryAcquire("A");
    expect(a1).not.toBeNull();
    expect(a2).not.toBeNull();
    expect(gate.tryAcquire("A")).toBeNull();
    expect(gate.tryAcquire("B")).not.toBeNull();
    a1!();
    a1!(); // a second release must not free a second slot
    expect(gate.inFlight("A")).toBe(1);
    expect(gate.tryAcquire("A")).not.toBeNull();
    expect(gate.tryAcquire("A")).toBeNull();
  });

  test("deferrals of a saturated shop queue up one slot apart, from the observed attempt time", () => {
    const { gate, observe } = setup(2);
    observe("A", 4000);
    gate.tryAcquire("A");
    gate.tryAcquire("A");
    // 4000 ms per attempt, 2 at a time: a slot frees every 2000 ms.
    expect([gate.deferralMs("A"), gate.deferralMs("A"), gate.deferralMs("A")]).toEqual([2000, 4000, 6000]);
  });

  test("a long backlog is spread up to the maximum deferral, never beyond", () => {
    const { gate, clock, observe } = setup(1);
    observe("A", 5000);
    gate.tryAcquire("A");
    const delays = Array.from({ length: 20 }, () => gate.deferralMs("A"));
    expect(delays.slice(0, 6)).toEqual([5000, 10000, 15000, 20000, 25000, 30000]);
    expect(delays.every((d) => d <= 30_000)).toBe(true);
  });

  test("before any attempt finished, the optimistic estimate applies, with the minimum as a floor", () => {
    const { gate } = setup(4);
    for (let i = 0; i < 4; i++) gate.tryAcquire("B");
    expect(gate.deferralMs("B")).toBe(50); // 100 ms / 4 = 25 ms, below the floor
    expect(gate.deferralMs("B")).toBe(50);
  });

  test("once the backlog has passed, deferrals start from now again", () => {
    const { gate, clock, observe } = setup(1);
    observe("A", 1000);
    gate.tryAcquire("A");
    gate.deferralMs("A");
    gate.deferralMs("A");
    clock.t += 60_000;
    expect(gate.deferralMs("A")).toBe(1000);
  });

  test("a shop idle for a quarter of an hour is forgotten, with what was learnt about it", () => {
    const { gate, clock, observe } = setup(1);
    observe("A", 4000);
    clock.t += 16 * 60_000;
    for (let i = 0; i < 1024; i++) gate.tryAcquire(`other-${i}`)?.();
    gate.tryAcquire("A");
    expect(gate.deferralMs("A")).toBe(100); // the optimistic first estimate again, not the 4 s it had seen
  });

  describe("waiting here instead of a deferral", () => {
    test("a healthy shop's deliveries wait for its next freed slot, first come first served, and none is deferred", async () => {
      const { gate, observe } = setup(2, { maxWaitMs: 250, maxWaiters: 10 });
      observe("A", 5);
      const held = [gate.acquire("A"), gate.acquire("A")] as (() => void)[];
      const order: number[] = [];
      const waiting = [1, 2, 3].map((n) => {
        const slot = gate.acquire("A");
        expect(slot).toBeInstanceOf(Promise);
        return (slot as Promise<() => void>).then((release) => (order.push(n), release));
      });
      held[0]!();
      const first = await waiting[0]!;
      held[1]!();
      first();
      await Promise.all(waiting);
      expect(order).toEqual([1, 2, 3]);
      expect(gate.inFlight("A")).toBe(2);
    });

    test("a slow shop's delivery is deferred: its queue would outlast the wait allowed", () => {
      const { gate, observe } = setup(2, { maxWaitMs: 250, maxWaiters: 10 });
      observe("A", 200);
      gate.acquire("A");
      gate.acquire("A");
      expect(gate.acquire("A")).toBeInstanceOf(Promise); // one slot's time: 200 ms
      expect(gate.acquire("A")).toBeInstanceOf(Promise);
      expect(gate.acquire("A")).toBeNull(); // the third waiter's turn would come after 400 ms
    });

    test("an attempt in flight for long makes a shop slow whatever its average: it is not waited for", () => {
      const { gate, clock, observe } = setup(1, { maxWaitMs: 250, maxWaiters: 10 });
      observe("A", 2);
      gate.acquire("A");
      clock.t += 1000; // the endpoint stopped answering
      expect(gate.acquire("A")).toBeNull();
    });

    test("a spike of a few slow attempts that is over does not defer a healthy shop; its attempts hanging in flight do", () => {
      const { gate, observe } = setup(4, { maxWaitMs: 250, maxWaiters: 60 });
      for (let i = 0; i < 12; i++) observe("A", 5);
      for (let i = 0; i < 4; i++) observe("A", 60); // the endpoint (or this host) paused for a moment
      for (let i = 0; i < 3; i++) observe("A", 5);
      for (let i = 0; i < 4; i++) gate.acquire("A");
      // 60 waiters, 4 at a time, 5 ms each: the last one's turn comes after ~75 ms.
      const waiters = Array.from({ length: 60 }, () => gate.acquire("A"));
      expect(waiters.every((w) => w instanceof Promise)).toBe(true);

      const { gate: hung, clock: hungClock, observe: hungObserve } = setup(4, { maxWaitMs: 250, maxWaiters: 60 });
      for (let i = 0; i < 16; i++) hungObserve("B", 5);
      for (let i = 0; i < 4; i++) hung.acquire("B");
      hungClock.t += 300; // the four attempts in flight stopped answering
      expect(hung.acquire("B")).toBeNull();
    });

    test("at most maxWaiters deliveries wait, all shops together", () => {
      const { gate, observe } = setup(1, { maxWaitMs: 250, maxWaiters: 2 });
      observe("A", 1);
      observe("B", 1);
      gate.acquire("A");
      gate.acquire("B");
      expect(gate.acquire("A")).toBeInstanceOf(Promise);
      expect(gate.acquire("B")).toBeInstanceOf(Promise);
      expect(gate.acquire("B")).toBeNull();
    });
  });
});
