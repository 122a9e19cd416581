import { eq, sql } from "drizzle-orm";
import { openStore, SerialSqlite } from "@payaccept/platform";
import { Patience, type LedgerOps, type LedgerStore } from "./ledger-store.ts";
import { addToBucketSet, adjustAvailableSet, availableCovers, bucketCovers, bucketOfDay, releasedBuckets, releasedSums, REPLACE_HOLD_FIGURES, successOf } from "./ledger-terms.ts";
import { sqlitePayoutOps } from "./payout-store.sqlite.ts";
import { accounts, appliedEvents, appliedRefundEvents, frozenBuckets, refundHolds, schema } from "./schema.sqlite.ts";

const p = sql.placeholder;

/**
 * The ledger on its SQLite file: statements prepared once on the one connection, queued by
 * SerialSqlite so that a transaction's statements are the only ones inside it.
 */
export function openSqliteLedgerStore(path: string, migrationsFolder: string): LedgerStore {
  const { sqlite, db } = openStore(path, schema, migrationsFolder);
  const serial = new SerialSqlite(sqlite);

  const insertEvent = db.insert(appliedEvents).values({
    paymentId: p("paymentId"),
    status: p("status"),
    accountId: p("accountId"),
    shopId: p("shopId"),
    amountKopecks: p("amountKopecks"),
    commissionKopecks: p("commissionKopecks"),
    netKopecks: p("netKopecks"),
    paidAt: p("paidAt"),
    moscowDay: p("moscowDay"),
    occurredAt: p("occurredAt"),
    appliedAt: p("appliedAt"),
  }).onConflictDoNothing().returning({ paymentId: appliedEvents.paymentId }).prepare();

  const addToBucket = db.insert(frozenBuckets).values({
    accountId: p("accountId"),
    moscowDay: p("moscowDay"),
    amountKopecks: p("amountKopecks"),
  }).onConflictDoUpdate({
    target: [frozenBuckets.accountId, frozenBuckets.moscowDay],
    set: addToBucketSet(frozenBuckets),
  }).prepare();

  const releasedSum = db
    .select(releasedSums(frozenBuckets))
    .from(frozenBuckets)
    .where(releasedBuckets(frozenBuckets, p("accountId"), p("lastReleasedDay")))
    .prepare();

  const deleteReleased = db
    .delete(frozenBuckets)
    .where(releasedBuckets(frozenBuckets, p("accountId"), p("lastReleasedDay")))
    .prepare();

  const snapshot = sqlite.prepare<{ availableKopecks: number; frozenKopecks: number; dueBuckets: number }, { accountId: string; lastReleasedDay: string }>(
    `SELECT coalesce((SELECT available_kopecks FROM accounts WHERE account_id = $accountId), 0) AS availableKopecks,
            coalesce((SELECT sum(amount_kopecks) FROM frozen_buckets WHERE account_id = $accountId AND moscow_day > $lastReleasedDay), 0) AS frozenKopecks,
            (SELECT count(*) FROM frozen_buckets WHERE account_id = $accountId AND moscow_day <= $lastReleasedDay) AS dueBuckets`,
  );

  const adjust = db.insert(accounts).values({
    accountId: p("accountId"),
    availableKopecks: p("deltaKopecks"),
    updatedAt: p("at"),
  }).onConflictDoUpdate({
    target: accounts.accountId,
    set: adjustAvailableSet(accounts),
  }).prepare();

  const debitWithin = db
    .update(accounts)
    .set({ availableKopecks: sql`${accounts.availableKopecks} - ${p("amountKopecks")}`, updatedAt: sql`${p("at")}` })
    .where(availableCovers(accounts, p("accountId"), p("amountKopecks")))
    .returning({ availableKopecks: accounts.availableKopecks })
    .prepare();

  const available = db
    .select({ availableKopecks: accounts.availableKopecks })
    .from(accounts)
    .where(eq(accounts.accountId, p("accountId")))
    .prepare();

  const receiptDay = db
    .select({ moscowDay: appliedEvents.moscowDay })
    .from(appliedEvents)
    .where(successOf(appliedEvents, p("paymentId")))
    .prepare();
  const frozenOfDay = db
    .select({ amountKopecks: frozenBuckets.amountKopecks })
    .from(frozenBuckets)
    .where(bucketOfDay(frozenBuckets, p("accountId"), p("moscowDay")))
    .prepare();
  const takeFrozen = db
    .update(frozenBuckets)
    .set({ amountKopecks: sql`${frozenBuckets.amountKopecks} - ${p("amountKopecks")}` })
    .where(bucketCovers(frozenBuckets, p("accountId"), p("moscowDay"), p("amountKopecks")))
    .returning({ amountKopecks: frozenBuckets.amountKopecks })
    .prepare();
  const holdOf = db.select().from(refundHolds).where(eq(refundHolds.refundId, p("refundId"))).prepare();
  const putHold = db.insert(refundHolds).values({
    refundId: p("refundId"),
    paymentId: p("paymentId"),
    accountId: p("accountId"),
    state: p("state"),
    frozenDay: p("frozenDay"),
    frozenKopecks: p("frozenKopecks"),
    availableKopecks: p("availableKopecks"),
    createdAt: p("createdAt"),
    settledAt: p("settledAt"),
  }).onConflictDoUpdate({
    target: refundHolds.refundId,
    set: REPLACE_HOLD_FIGURES,
  }).prepare();
  const insertRefundEvent = db.insert(appliedRefundEvents).values({
    refundId: p("refundId"),
    status: p("status"),
    paymentId: p("paymentId"),
    accountId: p("accountId"),
    balanceKopecks: p("balanceKopecks"),
    occurredAt: p("occurredAt"),
    appliedAt: p("appliedAt"),
  }).onConflictDoNothing().returning({ refundId: appliedRefundEvents.refundId }).prepare();

  const ops: LedgerOps = {
    // In-process statements: one each costs microseconds, the batch's gain is its one commit.
    recordEvents: async (es) => es.map((e) => insertEvent.get(e) !== undefined),
    addFrozen: async (accountId, moscowDay, amountKopecks) => void addToBucket.run({ accountId, moscowDay, amountKopecks }),
    addFrozenSums: async (sums) => sums.forEach((s) => addToBucket.run(s)),
    releasedFrozen: async (accountId, lastReleasedDay) => releasedSum.get({ accountId, lastReleasedDay })!,
    deleteReleasedFrozen: async (accountId, lastReleasedDay) => void deleteReleased.run({ accountId, lastReleasedDay }),
    balanceSnapshot: async (accountId, lastReleasedDay) => snapshot.get({ accountId, lastReleasedDay })!,
    available: async (accountId) => available.get({ accountId })?.availableKopecks ?? 0,
    adjustAvailable: async (accountId, deltaKopecks, at) => void adjust.run({ accountId, deltaKopecks, at }),
    debitIfAvailable: async (accountId, amountKopecks, at) => debitWithin.get({ accountId, amountKopecks, at }) !== undefined,
    receiptDay: async (paymentId) => receiptDay.get({ paymentId })?.moscowDay ?? undefined,
    frozenOfDay: async (accountId, moscowDay) => frozenOfDay.get({ accountId, moscowDay })?.amountKopecks ?? 0,
    takeFrozen: async (accountId, moscowDay, amountKopecks) => takeFrozen.get({ accountId, moscowDay, amountKopecks }) !== undefined,
    refundHold: async (refundId) => holdOf.get({ refundId }),
    putRefundHold: async (h) => void putHold.run(h),
    recordRefundEvent: async (e) => insertRefundEvent.get(e) !== undefined,
    ...sqlitePayoutOps(db),
  };

  return {
    ...serial.outsideTx(ops),
    // The whole file is the lock: every account's units run one at a time, in every process.
    tx: (_accountId, fn, opts) => {
      const patience = opts?.waitMs === undefined ? undefined : new Patience(opts.waitMs);
      return serial.tx(async () => {
        patience?.leftMs();
        const value = await fn(ops);
        patience?.leftMs();
        return value;
      });
    },
    close: async () => serial.exclusive(() => sqlite.close()),
  };
}
