import { and, asc, desc, eq, inArray, lte } from "drizzle-orm";
import type { Reason } from "@payaccept/contracts";
import type { OnEither } from "@payaccept/platform/table";
import type * as tables from "./schema.ts";

/**
 * The terms both engines' receipt statements share, on either schema's columns; each engine file
 * keeps only its own statements (the claim's lock on PostgreSQL, the file's on SQLite) around them.
 */

type Receipts = OnEither<typeof tables.receipts>;

/** A payment's receipts in the order they were made (sale first). */
export const receiptOrder = (r: Receipts) => [asc(r.createdAt), asc(r.id)];

/** The shop's receipts of these payments, grouped by payment, each payment's in the order they were made. */
export const ofShopPayments = (r: Receipts, shopId: string, paymentIds: string[]) => and(eq(r.shopId, shopId), inArray(r.paymentId, paymentIds));
export const byPaymentOrder = (r: Receipts) => [asc(r.paymentId), ...receiptOrder(r)];

/**
 * The receipt as its document `generation` left it, while still on its way (PENDING or SENT):
 * what an attempt's result or a register's callback may change. A REGISTERED receipt is final, a
 * FAILED one waits for an operator, and a newer generation is another document.
 */
export const isCurrentOpen = (r: Receipts, id: string, generation: number) =>
  and(eq(r.id, id), eq(r.generation, generation), inArray(r.status, ["PENDING", "SENT"]));

/** Receipts whose next attempt is due, and their order: the longest waiting first. */
export const isDue = (r: Receipts, now: number) => lte(r.nextAttemptAt, now);
export const dueOrder = (r: Receipts) => asc(r.nextAttemptAt);

/** FAILED receipts (of one last error, when given), the latest failed first (receipts_failed_idx). */
export const isFailed = (r: Receipts, reason: Reason | undefined) => and(eq(r.status, "FAILED"), reason ? eq(r.lastErrorCode, reason) : undefined);
export const failedOrder = (r: Receipts) => [desc(r.updatedAt), desc(r.id)];
