import type { Reason } from "@payaccept/contracts";
import type { NewReceiptRow, ReceiptRow, ReceiptRowStatus } from "./schema.ts";

/** The receipts' store as its users see it, whichever engine holds it; open-receipts-store.ts opens it. */

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
  /** The FAILED receipts of every shop (of one last error, when given), the latest failed first: what needs an operator. */
  failed(limit: number, reason?: Reason): Promise<ReceiptRow[]>;
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
  /**
   * The result of an attempt or a callback about document `generation`: applied only while the
   * receipt is still on its way with that document (isCurrentOpen), in one statement, so the
   * sender and a callback racing on one receipt never undo each other. The row after it, or
   * undefined when the receipt had moved on.
   */
  updateIfCurrent(id: string, generation: number, patch: Partial<NewReceiptRow>, now: number): Promise<ReceiptRow | undefined>;
}

export interface ReceiptsStore extends ReceiptsOps {
  /**
   * One atomic unit of work on one payment's receipts (a refund receipt reads the sale and the
   * earlier refunds it depends on), serialised with every other unit on that payment from any
   * process on any host: on SQLite by the file's write lock (BEGIN IMMEDIATE), on PostgreSQL by
   * the payment's sale receipt row (SELECT … FOR UPDATE). The body uses `t`, never the store.
   */
  forPayment<T>(paymentId: string, fn: (t: ReceiptsOps) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
