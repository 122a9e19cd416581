/**
 * Balance read cost versus history length. Fills one ledger file, through the same domain
 * functions the service runs, with 1,000,000 receipts of one account spread over two years and 10
 * receipts of another, then times balance reads of both, and for contrast a read that would sum
 * the account's history. Run by hand: `bun bench/balance.ts [receipts] [--postgres]` (the ledger on
 * a throwaway PostgreSQL instead of a SQLite file; fill it with fewer receipts, e.g. 20000).
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readBalance } from "../services/balance/src/balance.ts";
import type { PaymentEvent } from "@payaccept/contracts";
import { Batcher } from "@payaccept/platform";
import { applyPaymentEvents } from "../services/balance/src/ledger.ts";
import { PAYMENT_EVENT_BATCH } from "../services/balance/src/payment-event-consumer.ts";
import { openLedgerStore } from "../services/balance/src/store/open-ledger-store.ts";
import { paymentEvent } from "../services/balance/src/testing.ts";
import { startPostgres } from "../tests/harness/postgres.ts";

const HOLD_HOUR = 12;
const DAY = 86_400_000;
const HISTORY_DAYS = 730;
const ON_POSTGRES = process.argv.includes("--postgres");
const BIG = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 1_000_000);
const SMALL = 10;
const READS = 20_000;
const NOW = Date.parse("2025-03-10T12:00:00Z");

const dir = mkdtempSync(join(tmpdir(), "balance-bench-"));
const path = join(dir, "balance.db");
const pg = ON_POSTGRES ? await startPostgres() : undefined;
const store = await openLedgerStore(
  pg
    ? { engine: "postgres", variable: "BALANCE_DATABASE_URL", url: pg.url, schema: "balance", pool: 10, statementTimeoutMs: 5000, connectTimeoutMs: 5000 }
    : { engine: "sqlite", path },
);

/**
 * Receipts evenly over the last two years, as the consumer applies them: a pull's worth
 * (PAYMENT_EVENT_BATCH) handed to the Batcher at once, one transaction per batch. The newest are
 * still on hold at NOW.
 */
async function fill(accountId: string, count: number): Promise<number> {
  const intake = new Batcher((events: PaymentEvent[]) => applyPaymentEvents(store, events, NOW), PAYMENT_EVENT_BATCH);
  const started = performance.now();
  for (let from = 0; from < count; from += PAYMENT_EVENT_BATCH) {
    const pull = Array.from({ length: Math.min(PAYMENT_EVENT_BATCH, count - from) }, (_, k) => {
      const i = from + k;
      const paidAt = new Date(NOW - Math.floor(((count - 1 - i) / count) * HISTORY_DAYS * DAY)).toISOString();
      return intake.add(paymentEvent({ accountId, paidAt, amountKopecks: 10_000, commissionKopecks: 70 }));
    });
    await Promise.all(pull);
  }
  return performance.now() - started;
}

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!;

/** The first read releases every due bucket; the rest are the steady state. */
async function timeReads(accountId: string) {
  let started = performance.now();
  const balance = await readBalance(store, accountId, NOW, HOLD_HOUR);
  const firstMs = performance.now() - started;
  const us: number[] = [];
  for (let i = 0; i < READS; i++) {
    started = performance.now();
    await readBalance(store, accountId, NOW + i, HOLD_HOUR);
    us.push((performance.now() - started) * 1000);
  }
  us.sort((a, b) => a - b);
  return { balance, firstMs, medianUs: percentile(us, 0.5), p99Us: percentile(us, 0.99) };
}

/** What a read would cost if it summed the account's applied events instead of keeping aggregates (SQLite file only). */
function timeHistorySum(accountId: string): number {
  if (pg) return NaN;
  const db = new Database(path, { readonly: true });
  const q = db.query("SELECT sum(net_kopecks) AS s FROM applied_events WHERE account_id = ?");
  const started = performance.now();
  q.get(accountId);
  const ms = performance.now() - started;
  db.close();
  return ms;
}

const fillMs = (await fill("big", BIG)) + (await fill("small", SMALL));
console.log(`filled ${BIG + SMALL} receipts in ${(fillMs / 1000).toFixed(1)} s (${Math.round(((BIG + SMALL) / fillMs) * 1000)}/s)`);
for (const [accountId, n] of [["small", SMALL], ["big", BIG]] as const) {
  const r = await timeReads(accountId);
  console.log(
    `${String(n).padStart(9)} receipts: first read ${r.firstMs.toFixed(2)} ms, then median ${r.medianUs.toFixed(1)} µs, ` +
      `p99 ${r.p99Us.toFixed(1)} µs over ${READS} reads; available ${r.balance.availableKopecks}, frozen ${r.balance.frozenKopecks}; ` +
      `summing its history instead: ${timeHistorySum(accountId).toFixed(1)} ms`,
  );
}
await store.close();
await pg?.stop();
rmSync(dir, { recursive: true, force: true });
