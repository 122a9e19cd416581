import { and, eq, sql } from "drizzle-orm";
import { DomainError } from "@payaccept/contracts";
import { findSession } from "./sessions.ts";
import { inTransaction, type AcquirerDb } from "./store/db.ts";
import { refunds, type RefundRow } from "./store/schema.ts";

/** Test rule: a refund whose amount ends in 13 kopecks (e.g. 50.13 RUB) is declined, as a bank may decline one. */
export const DECLINED_REFUND_KOPECKS = 13;
export const REFUND_DECLINE_REASON = "refund_declined";

/**
 * A full or partial refund of a paid session, idempotent by (session, merchantRefundId): a repeat
 * returns the first answer. The refunds that succeeded add up to at most what was taken: the
 * amount, or the captured part of a hold.
 */
export function refundSession(
  db: AcquirerDb,
  req: { sessionId: string; merchantRefundId: string; amountKopecks: number },
  now: number,
): { refund: RefundRow; created: boolean } {
  return inTransaction(
    db,
    (tx) => {
      const mine = and(eq(refunds.sessionId, req.sessionId), eq(refunds.merchantRefundId, req.merchantRefundId));
      const existing = tx.select().from(refunds).where(mine).get();
      if (existing) return { refund: existing, created: false };
      const session = findSession(tx, req.sessionId);
      if (!session) throw new DomainError("SESSION_NOT_FOUND");
      if (session.status !== "PAID") throw new DomainError("SESSION_NOT_PAID");
      const refunded = tx
        .select({ total: sql<number>`coalesce(sum(${refunds.amountKopecks}), 0)` })
        .from(refunds)
        .where(and(eq(refunds.sessionId, req.sessionId), eq(refunds.status, "SUCCEEDED")))
        .get()!.total;
      // Sessions paid before captures existed have no captured amount: all of it was taken.
      const left = (session.capturedKopecks ?? session.amountKopecks) - refunded;
      if (req.amountKopecks > left) throw new DomainError("SESSION_REFUND_EXCEEDS", { leftKopecks: left });
      const declined = req.amountKopecks % 100 === DECLINED_REFUND_KOPECKS;
      const refund = tx
        .insert(refunds)
        .values({
          id: Bun.randomUUIDv7(),
          sessionId: req.sessionId,
          merchantRefundId: req.merchantRefundId,
          amountKopecks: req.amountKopecks,
          status: declined ? "FAILED" : "SUCCEEDED",
          reason: declined ? REFUND_DECLINE_REASON : null,
          createdAt: now,
        })
        .returning()
        .get();
      return { refund, created: true };
    },
  );
}
