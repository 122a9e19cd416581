import { SQL } from "bun";
import { ShopRecord, shopKvKey } from "@payaccept/contracts";
import { createLogger, openDirectoryBucket, type NatsConnection, type PgChoice } from "@payaccept/platform";
import { createPayment } from "../../services/payments/src/app/merchant.ts";
import type { PaymentsDeps } from "../../services/payments/src/app/deps.ts";
import { createPaymentsRepo, type SqlitePaymentsRepo, openPaymentsFile } from "../../services/payments/src/store/payments-store.sqlite.ts";
import { openPaymentsStore } from "../../services/payments/src/store/open-payments-store.ts";
import type { PaymentsRepo } from "../../services/payments/src/store/payments-store.ts";

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
  const repo = createPaymentsRepo(store, () => {});
  // The seeder's own wide transaction is the group: the SQLite repository itself, not the grouping store.
  const insert = async (...args: Parameters<SqlitePaymentsRepo["insert"]>) => repo.insert(...args);
  const sample = await fill(shop, rows, sampleSize, insert, 10_000, async (work) => {
    store.sqlite.exec("BEGIN IMMEDIATE");
    await work();
    store.sqlite.exec("COMMIT");
  });
  store.sqlite.exec("ANALYZE");
  store.sqlite.close();
  return { rows, seconds: (performance.now() - started) / 1000, sample };
}

/**
 * The same on payments' PostgreSQL store: the creates of one event-loop turn are one batch of the
 * store's group commit (one transaction, multi-row INSERTs of 1,000), so 2,000 creates started
 * together cost one commit; ANALYZE at the end, as after any bulk load.
 */
export async function seedPaymentsPg(choice: PgChoice, shop: ShopRecord, rows: number, sampleSize: number): Promise<SeededShop> {
  const started = performance.now();
  const store = await openPaymentsStore(choice, { onCommitted: () => {}, onEnded: () => {} });
  try {
    const sample = await fill(shop, rows, sampleSize, store.payments.insert, 2_000, (work) => work());
    const sql = new SQL(choice.url);
    await sql.unsafe(`analyze "${choice.schema}".payments`);
    await sql.close();
    return { rows, seconds: (performance.now() - started) / 1000, sample };
  } finally {
    await store.close();
  }
}

/** `rows` creates of the shop, `chunk` started together, each chunk inside `around`; a sample spread over them. */
async function fill(
  shop: ShopRecord,
  rows: number,
  sampleSize: number,
  insert: PaymentsRepo["insert"],
  chunk: number,
  around: (work: () => Promise<void>) => Promise<void>,
): Promise<SeededShop["sample"]> {
  let clock = Date.now() - rows;
  const deps = {
    repo: { insert },
    shops: { shop: async () => shop },
    log: createLogger("seed", "silent"),
    now: () => clock++,
    paypageUrl: "http://localhost",
    createdTtlMs: 24 * 3_600_000,
  } as unknown as PaymentsDeps; // the create use case needs no provider, balance or pending TTL
  const every = Math.max(1, Math.floor(rows / sampleSize));
  const sample: SeededShop["sample"] = [];
  for (let from = 0; from < rows; from += chunk) {
    await around(async () => {
      const indexes = Array.from({ length: Math.min(chunk, rows - from) }, (_, k) => from + k);
      const created = await Promise.all(
        indexes.map((i) =>
          createPayment(deps, shop.shopId, {
            orderId: `seed-${i}`,
            amountKopecks: 10_000 + (i % 90_000),
            description: "Seeded order",
            telegramId: i % 3 === 0 ? String(100_000_000 + i) : undefined,
          }),
        ),
      );
      created.forEach((p, k) => {
        if (indexes[k]! % every === 0 && sample.length < sampleSize) sample.push({ id: p.id, orderId: p.orderId });
      });
    });
  }
  return sample;
}
