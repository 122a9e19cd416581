import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPaymentsFile as openPaymentsStore, createPaymentsRepo, type SqlitePaymentsRepo as PaymentsRepo, type SqliteStore as PaymentsStore } from "./payments-store.sqlite.ts";
import { newPayment } from "../../test-support/new-payment.ts";
import { outbox, statusCounts } from "./schema.sqlite.ts";

/**
 * Two payments replicas on one host share payments.db. Two connections to one file stand for
 * them here: each sees the other's commits, and every write takes the file's write lock.
 */

const DUE = 20;

let dir: string;
let stores: PaymentsStore[];
let repos: PaymentsRepo[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "payments-shared-"));
  stores = [0, 1].map(() => openPaymentsStore(join(dir, "payments.db")));
  repos = stores.map((s) => createPaymentsRepo(s, () => {}));
});
afterEach(() => {
  for (const s of stores) s.sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

const input = (orderId: string) => newPayment("shop", orderId, { accountId: "acct", telegramId: null, metadata: null });

test("inserts alternating between replicas number one shop's payments 1…n, each once", () => {
  const rows = Array.from({ length: DUE }, (_, i) => repos[i % 2]!.insert(input(`o-${i}`), 1000 + (i % 3), 60_000));
  expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: DUE }, (_, i) => i + 1));
  expect(() => repos[1]!.insert(input("o-0"), 2000, 60_000)).toThrow();
});

test("two sweepers that listed the same due payments expire each once, with one event each", () => {
  for (let i = 0; i < DUE; i++) repos[0]!.insert(input(`o-${i}`), 1000, 0);
  const [a, b] = repos.map((r) => r.dueForExpiry(5000, DUE));
  expect(b).toEqual(a!);

  // Both replicas work through the same list, taking turns payment by payment: the second finds it EXPIRED already.
  const moves = a!.flatMap((id) => repos.map((r) => r.transition(id, "expire", 5000)!.decision.kind));
  expect(moves.filter((k) => k === "move")).toHaveLength(DUE);
  expect(moves.filter((k) => k === "already")).toHaveLength(DUE);

  const db = stores[0]!.db;
  expect(db.select().from(outbox).all().map((r) => r.eventId).sort()).toEqual(a!.map((id) => `${id}:EXPIRED`).sort());
  expect(db.select({ status: statusCounts.status, count: statusCounts.count }).from(statusCounts).all().sort((x, y) => x.status.localeCompare(y.status))).toEqual([
    { status: "CREATED", count: 0 },
    { status: "EXPIRED", count: DUE },
  ]);
  expect(repos[1]!.dueForExpiry(5000, DUE)).toEqual([]);
});
