import { count, eq, inArray, isNotNull, min } from "drizzle-orm";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import type { PgStore } from "@payaccept/platform";
import { saleKey } from "../recording.ts";
import { newReceiptRow, type ReceiptsOps, type ReceiptsRepo } from "./receipts-repo.ts";
import { byPaymentOrder, dueOrder, failedOrder, isCurrentOpen, isDue, isFailed, ofShopPayments, receiptOrder } from "./receipts-terms.ts";
import { receipts, schema } from "./schema.pg.ts";

type Db = BunSQLDatabase<typeof schema>;
/** The pool's database or a transaction's: the statements are the same. */
type Runner = Pick<Db, "select" | "insert" | "update" | "delete" | "execute">;

/** The receipts on PostgreSQL (docs/receipts.md, "Locks"): statements on the runner given (the pool, or the open transaction). */
function pgOps(db: Runner): ReceiptsOps {
  const first = async <R>(rows: Promise<R[]>) => (await rows)[0];
  return {
    byId: (id) => first(db.select().from(receipts).where(eq(receipts.id, id))),
    insert: (input, now) => first(db.insert(receipts).values(newReceiptRow(input, now)).onConflictDoNothing({ target: receipts.dedupeKey }).returning()),
    existsKey: async (dedupeKey) => (await first(db.select({ id: receipts.id }).from(receipts).where(eq(receipts.dedupeKey, dedupeKey)))) !== undefined,
    statusOf: async (dedupeKey) => (await first(db.select({ status: receipts.status }).from(receipts).where(eq(receipts.dedupeKey, dedupeKey))))?.status,
    ofPayment: (paymentId) => db.select().from(receipts).where(eq(receipts.paymentId, paymentId)).orderBy(...receiptOrder(receipts)),
    ofPayments: (shopId, paymentIds) =>
      db
        .select()
        .from(receipts)
        .where(ofShopPayments(receipts, shopId, paymentIds))
        .orderBy(...byPaymentOrder(receipts)),
    failed: (limit, reason) => db.select().from(receipts).where(isFailed(receipts, reason)).orderBy(...failedOrder(receipts)).limit(limit),
    countsByStatus: async () =>
      (await db.select({ status: receipts.status, n: count() }).from(receipts).groupBy(receipts.status)).map((c) => ({ status: c.status, n: Number(c.n) })),
    // One statement: the due rows another replica is claiming right now are skipped, not waited for.
    claimDue: (now, limit, leaseUntil) => {
      const due = db
        .select({ id: receipts.id })
        .from(receipts)
        .where(isDue(receipts, now))
        .orderBy(dueOrder(receipts))
        .limit(limit)
        .for("update", { skipLocked: true });
      return db.update(receipts).set({ nextAttemptAt: leaseUntil }).where(inArray(receipts.id, due)).returning();
    },
    nextDueAt: async () => {
      const at = (await first(db.select({ at: min(receipts.nextAttemptAt) }).from(receipts).where(isNotNull(receipts.nextAttemptAt))))?.at;
      return at === null || at === undefined ? null : Number(at);
    },
    update: async (id, patch, now) => (await first(db.update(receipts).set({ ...patch, updatedAt: now }).where(eq(receipts.id, id)).returning()))!,
    updateIfCurrent: (id, generation, patch, now) => first(db.update(receipts).set({ ...patch, updatedAt: now }).where(isCurrentOpen(receipts, id, generation)).returning()),
  };
}

export function openPgReceiptsRepo({ db, close }: PgStore<typeof schema>): ReceiptsRepo {
  return {
    ...pgOps(db),
    forPayment: (paymentId, fn) =>
      db.transaction(async (tx) => {
        // The sale receipt's row is the payment's lock: refund receipts computed from it and from
        // each other run one after the other. No sale row: nothing to refund, nothing to lock.
        await tx.select({ id: receipts.id }).from(receipts).where(eq(receipts.dedupeKey, saleKey(paymentId))).for("update");
        return fn(pgOps(tx));
      }),
    close,
  };
}
