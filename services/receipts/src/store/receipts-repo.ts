import { join } from "node:path";
import { openOnEngine, type DatabaseChoice, type Logger, type SqliteImport } from "@payaccept/platform";
import { openPgReceiptsRepo } from "./receipts-repo.pg.ts";
import { openSqliteReceiptsRepo } from "./receipts-repo.sqlite.ts";
import type { NewReceiptRow, ReceiptRow, ReceiptRowStatus } from "./schema.ts";
import { schema as pgSchema } from "./schema.pg.ts";

export type NewReceipt = Omit<NewReceiptRow, "id" | "status" | "attempts" | "generation" | "nextAttemptAt" | "createdAt" | "updatedAt">;

/** The row a new receipt becomes: PENDING and due at once (it is its own outbox row). */
export const newReceiptRow = (input: NewReceipt, now: number) => ({
  ...input,
  id: Bun.randomUUIDv7(),
  status: "PENDING" as const,
  nextAttemptAt: now,
  createdAt: now,
  updatedAt: now,
});

/**
 * Every read and write of the receipts, the same on SQLite and PostgreSQL (docs/conventions.md,
 * "One repository, two engines"; the lock of each operation: docs/receipts.md, "Locks").
 */
export interface ReceiptsOps {
  byId(id: string): Promise<ReceiptRow | undefined>;
  /** The new row, or undefined when a receipt with its dedupe key exists already (UNIQUE, ON CONFLICT DO NOTHING). */
  insert(input: NewReceipt, now: number): Promise<ReceiptRow | undefined>;
  existsKey(dedupeKey: string): Promise<boolean>;
  statusOf(dedupeKey: string): Promise<ReceiptRowStatus | undefined>;
  /** Oldest first. */
  ofPayment(paymentId: string): Promise<ReceiptRow[]>;
  ofPayments(shopId: string, paymentIds: string[]): Promise<ReceiptRow[]>;
  /** Receipts per status, for the metrics. */
  countsByStatus(): Promise<{ status: ReceiptRowStatus; n: number }[]>;
  /**
   * Takes up to `limit` due rows for one attempt each by moving their next attempt to
   * `leaseUntil`: of several replicas (on any host) looking at the same due rows, each row goes
   * to exactly one. The rows come back as they are after the claim.
   */
  claimDue(now: number, limit: number, leaseUntil: number): Promise<ReceiptRow[]>;
  /** The earliest moment any receipt is due, or null when none waits. */
  nextDueAt(): Promise<number | null>;
  update(id: string, patch: Partial<NewReceiptRow>, now: number): Promise<ReceiptRow>;
}

export interface ReceiptsRepo extends ReceiptsOps {
  /**
   * One atomic unit of work on one payment's receipts (a refund receipt reads the sale and the
   * earlier refunds it depends on), serialised with every other unit on that payment from any
   * process on any host: on SQLite by the file's write lock (BEGIN IMMEDIATE), on PostgreSQL by
   * the payment's sale receipt row (SELECT … FOR UPDATE). The body uses `t`, never the repo.
   */
  forPayment<T>(paymentId: string, fn: (t: ReceiptsOps) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const MIGRATIONS = join(import.meta.dir, "../../drizzle");
const PG_MIGRATIONS = join(import.meta.dir, "../../drizzle-pg");

/**
 * The receipts on the engine the configuration chose (RECEIPTS_DATABASE_URL), migrated. On
 * PostgreSQL, `importFrom` names the receipts.db of a deployment moving over: its receipts are
 * copied once into the empty store, those still PENDING or SENT with their external ids, so the
 * sender carries on with them and the register's idempotency keeps each one document.
 */
export async function openReceiptsRepo(choice: DatabaseChoice, opts: { importFrom?: string; log?: Logger } = {}): Promise<ReceiptsRepo> {
  const importFrom: SqliteImport<typeof pgSchema> = { from: opts.importFrom, tables: [["receipts", pgSchema.receipts]], mark: "receipts_imported", lock: "payaccept.receipts.import", what: "receipts" };
  return openOnEngine(choice, (path) => openSqliteReceiptsRepo(path, MIGRATIONS), { schema: pgSchema, migrationsFolder: PG_MIGRATIONS, open: openPgReceiptsRepo, importFrom }, opts.log);
}
