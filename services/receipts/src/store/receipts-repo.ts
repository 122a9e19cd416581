import { and, asc, count, eq, inArray, isNotNull, lte, min } from "drizzle-orm";
import type { Store } from "@payaccept/platform";
import { receipts, type NewReceiptRow, type ReceiptRow, type schema } from "./schema.ts";

export type ReceiptsStore = Store<typeof schema>;
export type NewReceipt = Omit<NewReceiptRow, "id" | "status" | "attempts" | "generation" | "nextAttemptAt" | "createdAt" | "updatedAt">;

/**
 * Every read and write of receipts.db. A receipt is inserted once per dedupe key (UNIQUE: a
 * duplicate insert does nothing) and is its own outbox row; each write is one statement or an
 * IMMEDIATE transaction, so replicas can share the file.
 */
export function createReceiptsRepo(store: ReceiptsStore) {
  const { db } = store;
  const byId = (id: string) => db.select().from(receipts).where(eq(receipts.id, id)).get();

  return {
    byId,

    /** The new row, or undefined when a receipt with its dedupe key exists already. */
    insert(input: NewReceipt, now: number): ReceiptRow | undefined {
      return db
        .insert(receipts)
        .values({ ...input, id: Bun.randomUUIDv7(), status: "PENDING", nextAttemptAt: now, createdAt: now, updatedAt: now })
        .onConflictDoNothing({ target: receipts.dedupeKey })
        .returning()
        .get();
    },

    /** Runs `work` in one IMMEDIATE transaction (a refund receipt reads the earlier ones it depends on). */
    atomically<T>(work: () => T): T {
      return db.transaction(() => work(), { behavior: "immediate" });
    },

    existsKey: (dedupeKey: string) => db.select({ id: receipts.id }).from(receipts).where(eq(receipts.dedupeKey, dedupeKey)).get() !== undefined,

    statusOf: (dedupeKey: string) => db.select({ status: receipts.status }).from(receipts).where(eq(receipts.dedupeKey, dedupeKey)).get()?.status,

    ofPayment: (paymentId: string) => db.select().from(receipts).where(eq(receipts.paymentId, paymentId)).orderBy(asc(receipts.createdAt), asc(receipts.id)).all(),

    ofPayments: (shopId: string, paymentIds: string[]) =>
      db
        .select()
        .from(receipts)
        .where(and(eq(receipts.shopId, shopId), inArray(receipts.paymentId, paymentIds)))
        .orderBy(asc(receipts.paymentId), asc(receipts.createdAt), asc(receipts.id))
        .all(),

    /** Receipts per status, for the metrics. */
    countsByStatus: () => db.select({ status: receipts.status, n: count() }).from(receipts).groupBy(receipts.status).all(),

    due: (now: number, limit: number) =>
      db.select().from(receipts).where(lte(receipts.nextAttemptAt, now)).orderBy(asc(receipts.nextAttemptAt)).limit(limit).all(),

    /** The earliest moment any receipt is due, or null when none waits. */
    nextDueAt: () => db.select({ at: min(receipts.nextAttemptAt) }).from(receipts).where(isNotNull(receipts.nextAttemptAt)).get()?.at ?? null,

    /**
     * Takes a due row for one attempt by moving its next attempt past the lease: of several
     * replicas reading the same due row, exactly one sees its update change the row.
     */
    claim(row: ReceiptRow, leaseUntil: number): boolean {
      const taken = db
        .update(receipts)
        .set({ nextAttemptAt: leaseUntil })
        .where(and(eq(receipts.id, row.id), eq(receipts.nextAttemptAt, row.nextAttemptAt!)))
        .returning({ id: receipts.id })
        .get();
      return taken !== undefined;
    },

    update(id: string, patch: Partial<NewReceiptRow>, now: number): ReceiptRow {
      return db.update(receipts).set({ ...patch, updatedAt: now }).where(eq(receipts.id, id)).returning().get()!;
    },
  };
}
export type ReceiptsRepo = ReturnType<typeof createReceiptsRepo>;
