/**
 * The dashboard overview's aggregates at scale (run by hand: `bun bench/overview-stats.ts [rows]`).
 * One shop with `rows` payments over the 30 Moscow days of a month, in a temporary payments.db
 * stored as it was before the daily rollup; opening it again runs the rollup's migration, whose
 * backfill is timed too. Then, p50 of what one overview page asks for:
 * - payments: rpcs.payments.stats' query (the rollup over the month) and the page's arithmetic;
 * - webhooks: rpcs.webhooks.health's query over as many deliveries as payments, for the month;
 * - the payments list's totals (rollup) and a sorted page.
 * Each runs in the service's own repository/store, as the RPC handlers call them.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PAYMENT_STATUSES, type PaymentStatus } from "@payaccept/contracts";
import { openStore } from "@payaccept/platform";
import { overviewFigures } from "../services/dashboard/src/web/overview/figures.ts";
import { openPaymentsFile, createPaymentsRepo } from "../services/payments/src/store/payments-store.sqlite.ts";
import { schema } from "../services/payments/src/store/schema.sqlite.ts";
import { migrationsBefore as paymentsMigrationsBefore } from "../services/payments/test-support/migrations.ts";
import { migrationsBefore } from "../tests/harness/migrations.ts";
import { quantile, sampleMsAsync } from "./lib/stats.ts";
import { openSqliteDeliveryStore } from "../services/webhook-dispatcher/src/store/delivery-store.sqlite.ts";

const ROWS = Number(process.argv[2] ?? 1_000_000);
const RUNS = 21;
const SHOP = "shop-bench";
const MONTH = { from: "2026-03-01", to: "2026-03-30" };
const START = Date.parse("2026-02-28T21:00:00Z"); // 2026-03-01 00:00 MSK
const SPAN_MS = 30 * 86_400_000;
const dir = mkdtempSync(join(tmpdir(), "overview-bench-"));
const say = (s: string) => console.log(s);

function seconds(started: number): string {
  return `${((performance.now() - started) / 1000).toFixed(1)} s`;
}

/** `rows` payments spread evenly over the month: mostly paid, the rest over the other statuses; SBP and card alike. */
function fillPayments(path: string): void {
  const started = performance.now();
  const store = openStore(path, schema, paymentsMigrationsBefore("overview_rollup"));
  const insert = store.sqlite.prepare(
    `INSERT INTO payments (id, shop_id, account_id, seq, order_id, status, amount_kopecks, commission_kopecks, method, is_test, created_at, updated_at)
     VALUES (?, ?, 'acct', ?, ?, ?, ?, 0, ?, 0, ?, ?)`,
  );
  const counts = new Map<PaymentStatus, number>();
  const batch = 50_000;
  for (let from = 1; from <= ROWS; from += batch) {
    store.sqlite.transaction(() => {
      for (let seq = from; seq < Math.min(from + batch, ROWS + 1); seq++) {
        const createdAt = START + Math.floor(((seq - 1) * SPAN_MS) / ROWS);
        const status: PaymentStatus = seq % 10 < 7 ? "SUCCESS" : PAYMENT_STATUSES[seq % PAYMENT_STATUSES.length]!;
        const method = status === "CREATED" ? null : seq % 2 ? "SBP" : "CARD";
        counts.set(status, (counts.get(status) ?? 0) + 1);
        insert.run(Bun.randomUUIDv7("hex", createdAt), SHOP, seq, `order-${seq}`, status, 10_000 + (seq % 90_000), method, createdAt, createdAt);
      }
    })();
  }
  const setCount = store.sqlite.prepare("INSERT INTO status_counts (shop_id, status, count) VALUES (?, ?, ?)");
  for (const [status, n] of counts) setCount.run(SHOP, status, n);
  store.sqlite.close();
  say(`filled ${ROWS.toLocaleString("en-US")} payments in ${seconds(started)}`);
}

/**
 * As many deliveries as payments over the same month, with their first attempts; one in twenty
 * fails, one in ten needed a retry. Stored as before the health cells were redefined: opening the
 * store again runs that migration, whose rebuild of the rollup is timed too.
 */
function fillDeliveries(path: string): ReturnType<typeof openSqliteDeliveryStore> {
  const started = performance.now();
  const sqlite = openStore(path, {}, migrationsBefore(join(import.meta.dir, "../services/webhook-dispatcher/drizzle"), "health_unsent_first_kept")).sqlite;
  const insert = sqlite.prepare(
    `INSERT INTO deliveries (id, shop_id, payment_id, status, order_id, body, occurred_at, created_at, series, queued_series, series_attempts, result, last_error_code, updated_at)
     VALUES (?, ?, ?, 'SUCCESS', ?, '{}', ?, ?, 1, 1, ?, ?, ?, ?)`,
  );
  const firstAttempt = sqlite.prepare(`INSERT INTO attempts (delivery_id, series, attempt, started_at, duration_ms, http_status, error_code) VALUES (?, 1, 1, ?, 5, ?, ?)`);
  const batch = 50_000;
  for (let from = 1; from <= ROWS; from += batch) {
    sqlite.transaction(() => {
      for (let i = from; i < Math.min(from + batch, ROWS + 1); i++) {
        const at = START + Math.floor(((i - 1) * SPAN_MS) / ROWS);
        const [attempts, result, error] = i % 20 === 0 ? [7, "exhausted", "WEBHOOK_HTTP_STATUS"] : i % 10 === 0 ? [2, "delivered", null] : [1, "delivered", null];
        const id = Bun.randomUUIDv7("hex", at);
        insert.run(id, SHOP, `p-${i}`, `order-${i}`, at, at, attempts, result, error, at);
        firstAttempt.run(id, at, attempts === 1 ? 200 : 500, attempts === 1 ? null : "WEBHOOK_HTTP_STATUS");
      }
    })();
  }
  sqlite.exec("ANALYZE");
  sqlite.close();
  say(`filled ${ROWS.toLocaleString("en-US")} deliveries in ${seconds(started)}`);
  const migrating = performance.now();
  const store = openSqliteDeliveryStore(path);
  say(`health cells' migration (rebuild over ${ROWS.toLocaleString("en-US")} deliveries) in ${seconds(migrating)}`);
  return store;
}

async function p50(label: string, fn: () => unknown): Promise<void> {
  const { samples, result } = await sampleMsAsync(async () => fn(), RUNS);
  const summary = JSON.stringify(result).slice(0, 90);
  say(`${label.padEnd(62)} p50 ${quantile(samples, 0.5).toFixed(2).padStart(7)} ms   max ${Math.max(...samples).toFixed(2).padStart(7)} ms   ${summary}`);
}

const paymentsPath = join(dir, "payments.db");
fillPayments(paymentsPath);
const migrating = performance.now();
const store = openPaymentsFile(paymentsPath);
say(`rollup migration (backfill of ${ROWS.toLocaleString("en-US")} payments) in ${seconds(migrating)}`);
store.sqlite.exec("ANALYZE");
const repo = createPaymentsRepo(store, () => {});
const deliveries = fillDeliveries(join(dir, "webhooks.db"));

say(`\nthe overview of one shop for the month ${MONTH.from} … ${MONTH.to}:`);
await p50("payments.stats: rollup over the month", () => repo.dailyStats([SHOP], MONTH.from, MONTH.to).length);
await p50("payments.stats + the page's figures", () => overviewFigures({ rows: repo.dailyStats([SHOP], MONTH.from, MONTH.to), refunds: repo.dailyRefunds([SHOP], MONTH.from, MONTH.to) }, MONTH.from, MONTH.to).paid);
await p50("webhooks.health over the month", () => deliveries.health([SHOP], MONTH.from, MONTH.to));
say("\nthe payments list of the month:");
await p50("browse: newest first, page 1 × 50, count and sum per status", () => {
  const r = repo.browse(SHOP, { fromDay: MONTH.from, toDay: MONTH.to, sort: "created_desc", page: 1, limit: 50 });
  return { items: r.items.length, byStatus: r.byStatus };
});
await p50("browse: status=SUCCESS by amount, page 1 × 50, count and sum per status", () => {
  const r = repo.browse(SHOP, { fromDay: MONTH.from, toDay: MONTH.to, statuses: ["SUCCESS"], sort: "amount_desc", page: 1, limit: 50 });
  return { items: r.items.length, byStatus: r.byStatus };
});

store.sqlite.close();
await deliveries.close();
rmSync(dir, { recursive: true, force: true });
