import { asc, eq, isNotNull, sql } from "drizzle-orm";
import { refundAmount } from "../domain/refund-rules.ts";
import { fullyRefunded, refundHasEnded } from "../domain/state-machine.ts";
import type { SqlitePaymentsRepo, SqliteStore } from "./payments-repo.ts";
import type { EndedRefund, RefundOutcome, RefundRequest } from "./payments-store.ts";
import { byIdempotencyKey, claimable, holdingAmount, promiseRefund, refundDue, refundPendingSince, settleRefund, takenKopecks, waiting } from "./conditions.ts";
import { endedRefund, newRefundRow, refundEventRow, succeededKopecks, withTrace } from "./rows.ts";
import { outbox, payments as p, refunds as r } from "./schema.sqlite.ts";
import type { PaymentRow, RefundRow } from "./schema.ts";


const ph = sql.placeholder;

/**
 * The refunds of payments.db (SQLite). Opening and ending a refund are each one IMMEDIATE transaction that
 * also moves the payment's refunded/refunding sums (guarded by a trigger) and, on the end, writes
 * the RefundEvent and, when the payment is now fully refunded, its SUCCESS → REFUNDED transition
 * with the PaymentEvent. `onEnded` runs after the commit of every end.
 */
export function createRefundsRepo(store: SqliteStore, payments: SqlitePaymentsRepo, onEnded: (e: EndedRefund) => void) {
  const { db } = store;
  const byIdQ = db.select().from(r).where(eq(r.id, ph("id"))).prepare();
  const byKeyQ = db
    .select()
    .from(r)
    .where(byIdempotencyKey(r, ph("paymentId"), ph("key")))
    .prepare();
  const ofPaymentQ = db.select().from(r).where(eq(r.paymentId, ph("paymentId"))).orderBy(asc(r.id)).prepare();
  const takenQ = db
    .select(takenKopecks(r))
    .from(r)
    .where(holdingAmount(r, ph("paymentId")))
    .prepare();
  const dueQ = db
    .select({ id: r.id })
    .from(r)
    .where(refundDue(r, ph("now")))
    .orderBy(asc(r.retryAt))
    .limit(ph("limit"))
    .prepare();
  const claimQ = db
    .update(r)
    .set({ retryAt: sql`${ph("until")}` })
    .where(claimable(r, ph("id"), ph("now")))
    .returning()
    .prepare();
  const pendingQ = db
    .select(waiting(r.createdAt))
    .from(r)
    .where(isNotNull(r.retryAt))
    .prepare();
  const tx = <T>(fn: () => T): T => db.transaction(fn, { behavior: "immediate" });

  return {
    byId: (id: string): RefundRow | undefined => byIdQ.get({ id }),
    /** Oldest first (ids are UUIDv7). */
    ofPayment: (paymentId: string): RefundRow[] => ofPaymentQ.all({ paymentId }),

    /**
     * Records a PENDING refund and promises its amount (payments.refunding_kopecks), or returns the
     * refund this idempotency key already made. `leaseMs`: how long the caller drives it before the
     * sweeper may. Throws the domain's CONFLICT when the payment cannot be refunded by that much.
     */
    open(payment: PaymentRow, req: RefundRequest, now: number, leaseMs: number): { refund: RefundRow; created: boolean } {
      return tx(() => {
        if (req.idempotencyKey !== undefined) {
          const earlier = byKeyQ.get({ paymentId: payment.id, key: req.idempotencyKey });
          if (earlier) return { refund: earlier, created: false };
        }
        const row = payments.byId(payment.id)!;
        const amountKopecks = refundAmount(row, req.amountKopecks);
        const taken = takenQ.get({ paymentId: row.id })!.total;
        const refund = db.insert(r).values(newRefundRow(row, req, amountKopecks, taken, now, leaseMs)).returning().get();
        db.update(p).set(promiseRefund(p, amountKopecks, now)).where(eq(p.id, row.id)).run();
        return { refund, created: true };
      });
    },

    /** How many refunds are PENDING, and since when. */
    pending: (): { count: number; oldest: number | null } => pendingQ.get() ?? { count: 0, oldest: null },

    /** PENDING refunds whose retry time has come, oldest first. */
    due: (now: number, limit: number): string[] => dueQ.all({ now, limit }).map((x) => x.id),

    /** Refunds PENDING since before `before`, oldest first. */
    pendingSince: (before: number, limit: number): RefundRow[] => db.select().from(r).where(refundPendingSince(r, before)).orderBy(asc(r.createdAt)).limit(limit).all(),

    /** Takes a due PENDING refund for leaseMs (one driver at a time); undefined when it is not due or has ended. */
    claim: (id: string, now: number, leaseMs: number): RefundRow | undefined => claimQ.get({ id, now, until: now + leaseMs }),

    /**
     * Ends a PENDING refund; a refund that has already ended is returned as it is (two drivers may
     * reach the end of the same refund: the provider's answer is the same for both). `requestId` is
     * the API request that drove it to its end, for its events; the sweeper has none.
     */
    end(id: string, outcome: RefundOutcome, now: number, requestId?: string): RefundRow {
      let ended: EndedRefund | undefined;
      const { trace } = withTrace();
      const refund = tx(() => {
        const row = byIdQ.get({ id })!;
        if (refundHasEnded(row.status)) return row;
        const done = db.update(r).set(endedRefund(outcome, now)).where(eq(r.id, id)).returning().get();
        const succeeded = succeededKopecks(outcome, done);
        if (succeeded > 0) payments.countRefund(done.shopId, now, succeeded);
        let payment = db.update(p).set(settleRefund(p, done.amountKopecks, succeeded, now)).where(eq(p.id, done.paymentId)).returning().get();
        db.insert(outbox).values(refundEventRow(done, payment, now, requestId, trace)).run();
        const full = fullyRefunded(payment);
        if (full) payment = payments.transition(payment.id, "refund", now, { requestId, trace })!.row;
        ended = { refund: done, payment, becameRefunded: full, requestId };
        return done;
      });
      if (ended) onEnded(ended);
      return refund;
    },
  };
}

export type SqliteRefundsRepo = ReturnType<typeof createRefundsRepo>;
