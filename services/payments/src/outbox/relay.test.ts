import { afterAll, afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "@payaccept/platform";
import { eventually } from "../../../../tests/harness/stack.ts";
import { createOutboxRepo, openPaymentsFile as openPaymentsStore, createPaymentsRepo, type SqlitePaymentsRepo as PaymentsRepo, type SqliteStore as PaymentsStore } from "../store/payments-store.sqlite.ts";
import type { OutboxRow } from "../store/payments-store.ts";
import { OutboxRelay } from "./relay.ts";
import { outbox } from "../store/schema.sqlite.ts";
import { isNull } from "drizzle-orm";

const dir = mkdtempSync(join(tmpdir(), "payments-relay-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const log = createLogger("relay-test", "silent");

let store: PaymentsStore;
let repo: PaymentsRepo;
let relay: OutboxRelay | undefined;
/** What reached the "stream": event ids in publish order (the test's publisher stands in for JetStream). */
let published: string[];
let failNext: number;
/** Events whose next publish fails (once each). */
let failOnce: Set<string>;
let inFlight = 0;
let maxInFlight = 0;
let n = 0;

function startRelay(): void {
  relay = new OutboxRelay(
    createOutboxRepo(store),
    async (row: OutboxRow) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await Bun.sleep(1); // a PubAck takes a round trip
        if (failNext > 0 || failOnce.delete(row.eventId)) {
          failNext = Math.max(0, failNext - 1);
          throw new Error("no PubAck");
        }
        published.push(row.eventId);
        return { duplicate: false };
      } finally {
        inFlight--;
      }
    },
    log,
    { delayMs: 0, sweepMs: 60_000, retry: { baseMs: 5, capMs: 20 }, batchSize: 3 },
  );
  relay.start();
}

beforeEach(() => {
  store = openPaymentsStore(join(dir, `payments-${++n}.db`));
  published = [];
  failNext = 0;
  failOnce = new Set();
  maxInFlight = 0;
  relay = undefined;
  repo = createPaymentsRepo(store, () => relay?.wake());
});
afterEach(() => relay?.stop());

const canceledPayment = (order: string) => {
  const p = repo.insert(
    { shopId: "S", accountId: "A", orderId: order, amountKopecks: 100, commissionKopecks: 1, description: null, email: null, method: null, telegramId: null, metadata: null, successUrl: null, failUrl: null, isTest: true },
    Date.now(),
    60_000,
  );
  repo.transition(p.id, "cancel", Date.now());
  return `${p.id}:CANCELED`;
};
const unpublished = () => store.db.select().from(outbox).where(isNull(outbox.publishedAt)).all().length;

test("publishes each committed event once, in commit order, and marks it", async () => {
  startRelay();
  const ids = Array.from({ length: 8 }, (_, i) => canceledPayment(`o${i}`));
  await eventually(() => published.length === 8);
  expect(published).toEqual(ids);
  expect(unpublished()).toBe(0);
});

test("the events of a round are published at once, not one round trip after another", async () => {
  startRelay();
  const ids = Array.from({ length: 6 }, (_, i) => canceledPayment(`o${i}`));
  await eventually(() => published.length === 6);
  expect(published.toSorted()).toEqual(ids.toSorted());
  expect(maxInFlight).toBe(3); // the batch size
});

test("after a failed publish it backs off and retries; the events confirmed beside it are kept, none is lost or doubled", async () => {
  startRelay();
  const ids = Array.from({ length: 5 }, (_, i) => canceledPayment(`o${i}`));
  failOnce.add(ids[1]!);
  await eventually(() => published.length === 5 && unpublished() === 0);
  expect(published.toSorted()).toEqual(ids.toSorted());
  expect(published.indexOf(ids[1]!)).toBeGreaterThan(published.indexOf(ids[2]!));
});

test("a payment's events reach the stream in commit order, also when the first one's publish fails", async () => {
  const refunded = (order: string) => {
    const p = repo.insert(
      { shopId: "S", accountId: "A", orderId: order, amountKopecks: 100, commissionKopecks: 1, description: null, email: null, method: null, telegramId: null, metadata: null, successUrl: null, failUrl: null, isTest: true },
      Date.now(),
      60_000,
    );
    for (const trigger of ["start", "pay", "refund"] as const) repo.transition(p.id, trigger, Date.now());
    return [`${p.id}:SUCCESS`, `${p.id}:REFUNDED`] as const;
  };
  const [paid, refund] = refunded("r1");
  const others = [canceledPayment("o1"), canceledPayment("o2")];
  failOnce.add(paid);
  startRelay();
  await eventually(() => published.length === 4 && unpublished() === 0);
  expect(published.toSorted()).toEqual([paid, refund, ...others].toSorted());
  expect(published.indexOf(paid)).toBeLessThan(published.indexOf(refund));
});

test("events committed while no relay ran (a crash) are published at start", async () => {
  const ids = [canceledPayment("before-1"), canceledPayment("before-2")];
  expect(unpublished()).toBe(2);
  startRelay();
  await eventually(() => published.length === 2);
  expect(published).toEqual(ids);
});
