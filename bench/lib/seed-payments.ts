import { ShopRecord, shopKvKey } from "@payaccept/contracts";
import { createLogger, openDirectoryBucket, type NatsConnection } from "@payaccept/platform";
import { createPayment } from "../../services/payments/src/app/merchant.ts";
import type { PaymentsDeps } from "../../services/payments/src/app/deps.ts";
import { createPaymentsRepo, type SqlitePaymentsRepo } from "../../services/payments/src/store/payments-repo.ts";
import { openPaymentsFile } from "../../services/payments/src/store/payments-store.sqlite.ts";

export type SeededShop = {
  rows: number;
  seconds: number;
  /** A sample of seeded payments (CREATED), for get, lookup and cancel. */
  sample: { id: string; orderId: string }[];
};

/** The shop exactly as payments would read it from the directory bucket. */
export async function readShop(nc: NatsConnection, shopId: string): Promise<ShopRecord> {
  const entry = await (await openDirectoryBucket(nc)).get(shopKvKey(shopId));
  if (!entry) throw new Error(`shop ${shopId} is not in the directory`);
  return ShopRecord.parse(entry.json());
}

/**
 * Fills payments.db with `rows` payments of one shop through payments' own create use case and
 * repository (so seq, createdAt/id order, commission and status counters are what the service
 * writes), without NATS or HTTP: 1M creates through the API would take many minutes. Run only
 * while the payments service is stopped. Rows are committed 10,000 at a time (the repository's
 * own transaction becomes a savepoint inside the batch); createdAt is one millisecond apart,
 * ending now, and CREATED_TTL (24 h by default) is kept so nothing expires during the bench.
 */
export async function seedPayments(dbPath: string, shop: ShopRecord, rows: number, sampleSize: number): Promise<SeededShop> {
  const started = performance.now();
  const store = openPaymentsFile(dbPath);
  let clock = Date.now() - rows;
  const syncRepo = createPaymentsRepo(store, () => {});
  const deps = {
    // The seeder's own wide transaction is the group: the SQLite repository itself, not the grouping store.
    repo: { insert: async (...args: Parameters<SqlitePaymentsRepo["insert"]>) => syncRepo.insert(...args) },
    shops: { shop: async () => shop },
    log: createLogger("seed", "silent"),
    now: () => clock++,
    paypageUrl: "http://localhost",
    createdTtlMs: 24 * 3_600_000,
  } as unknown as PaymentsDeps; // the create use case needs no provider, balance or pending TTL
  const every = Math.max(1, Math.floor(rows / sampleSize));
  const sample: SeededShop["sample"] = [];
  const batch = 10_000;
  for (let from = 0; from < rows; from += batch) {
    store.sqlite.exec("BEGIN IMMEDIATE");
    for (let i = from; i < Math.min(from + batch, rows); i++) {
      const p = await createPayment(deps, shop.shopId, {
        orderId: `seed-${i}`,
        amountKopecks: 10_000 + (i % 90_000),
        description: "Seeded order",
        telegramId: i % 3 === 0 ? String(100_000_000 + i) : undefined,
      });
      if (i % every === 0 && sample.length < sampleSize) sample.push({ id: p.id, orderId: p.orderId });
    }
    store.sqlite.exec("COMMIT");
  }
  store.sqlite.exec("ANALYZE");
  store.sqlite.close();
  return { rows, seconds: (performance.now() - started) / 1000, sample };
}
