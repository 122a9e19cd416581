/**
 * Micro-benchmark of the payments list at scale (run by hand: `bun bench/payments-list.ts [rows]`).
 * Fills one shop with 1M payments in a temporary payments.db (the service's own schema and
 * migrations), then times the deep page 10000 × 100 and its total through the service's repository,
 * next to the naive OFFSET / COUNT(*) queries the design avoids.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ListPaymentsQuery, PAYMENT_STATUSES, type PaymentStatus } from "@payaccept/contracts";
import { createPaymentsRepo, openPaymentsFile } from "../services/payments/src/store/payments-store.sqlite.ts";
import { quantile, sampleMs } from "./lib/stats.ts";

const ROWS = Number(process.argv[2] ?? 1_000_000);
const SHOP = "shop-bench";
const dir = mkdtempSync(join(tmpdir(), "payments-bench-"));
const store = openPaymentsFile(join(dir, "payments.db"));
const repo = createPaymentsRepo(store, () => {});

function fill(): void {
  const started = performance.now();
  const insert = store.sqlite.prepare(
    `INSERT INTO payments (id, shop_id, account_id, seq, order_id, status, amount_kopecks, commission_kopecks, is_test, created_at, updated_at)
     VALUES (?, ?, 'acct', ?, ?, ?, 10000, 250, 0, ?, ?)`,
  );
  const counts = new Map<PaymentStatus, number>();
  const t0 = Date.parse("2026-01-01T00:00:00Z");
  const batch = 50_000;
  for (let from = 1; from <= ROWS; from += batch) {
    store.sqlite.transaction(() => {
      for (let seq = from; seq < Math.min(from + batch, ROWS + 1); seq++) {
        const createdAt = t0 + seq * 1000; // one a second: ~11.5 days for 1M
        // mostly SUCCESS, like a real shop; the rest spread over the other statuses
        const status: PaymentStatus = seq % 10 < 7 ? "SUCCESS" : PAYMENT_STATUSES[seq % PAYMENT_STATUSES.length]!;
        counts.set(status, (counts.get(status) ?? 0) + 1);
        insert.run(Bun.randomUUIDv7("hex", createdAt), SHOP, seq, `order-${seq}`, status, createdAt, createdAt);
      }
    })();
  }
  const setCount = store.sqlite.prepare("INSERT INTO status_counts (shop_id, status, count) VALUES (?, ?, ?)");
  for (const [status, n] of counts) setCount.run(SHOP, status, n);
  store.sqlite.exec("ANALYZE");
  console.log(`filled ${ROWS} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

function time(label: string, fn: () => unknown, runs = 5): void {
  const { samples, result } = sampleMs(fn, runs);
  console.log(`${label.padEnd(58)} median ${quantile(samples, 0.5).toFixed(2).padStart(8)} ms   ${summary(result)}`);
}

function summary(r: unknown): string {
  if (r && typeof r === "object" && "items" in r) {
    const { items, total } = r as { items: { createdAt: number }[]; total: number };
    return `items=${items.length} total=${total}`;
  }
  return JSON.stringify(r);
}

fill();
const q = (raw: Record<string, string>) => ListPaymentsQuery.parse(raw);
const deepest = q({ page: "10000", limit: "100" });
const mid = new Date(Date.parse("2026-01-01T00:00:00Z") + (ROWS / 2) * 1000).toISOString();

console.log("\nthe service's list (repository):");
time("page 10000 × 100 + total, no filter", () => repo.list(SHOP, deepest));
time("page 1 × 20 + total, no filter", () => repo.list(SHOP, q({})));
time("page 5000 × 100 + total, from = middle", () => repo.list(SHOP, q({ page: "5000", limit: "100", from: mid })));
time("page 1 × 20 + total, status=CANCELED (counters)", () => repo.list(SHOP, q({ status: "CANCELED" })));
time("page 400 × 100 + total, status=CANCELED (counters)", () => repo.list(SHOP, q({ status: "CANCELED", page: "400", limit: "100" })));
time("page 5000 × 100 + total, status=SUCCESS (counters)", () => repo.list(SHOP, q({ status: "SUCCESS", page: "5000", limit: "100" })));
time("page 5000 × 100 + total, status=SUCCESS,FAILED (counters)", () => repo.list(SHOP, q({ status: "SUCCESS,FAILED", page: "5000", limit: "100" })));
time("page 1 × 20 + total, status=FAILED,EXPIRED (counters)", () => repo.list(SHOP, q({ status: "FAILED,EXPIRED" })));
time("page 1 × 20 + total, status=SUCCESS + from = middle (count)", () => repo.list(SHOP, q({ status: "SUCCESS", from: mid })));

console.log("\nwhat the design avoids (plain SQL):");
time("OFFSET 999900 LIMIT 100 ORDER BY created_at, id", () =>
  store.sqlite.query("SELECT * FROM payments WHERE shop_id = ? ORDER BY created_at, id LIMIT 100 OFFSET 999900").all(SHOP).length,
);
time("COUNT(*) of the shop", () => store.sqlite.query("SELECT count(*) AS n FROM payments WHERE shop_id = ?").get(SHOP));

store.sqlite.close();
rmSync(dir, { recursive: true, force: true });
