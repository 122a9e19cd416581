import { sql } from "drizzle-orm";
import { openStore, placeholders, SerialSqlite, sqliteDb, sqliteRun } from "@payaccept/platform";
import { Patience, type LedgerOps, type LedgerStore } from "./ledger-store.ts";
import { ledgerStatements } from "./ledger-terms.ts";
import { payoutOps } from "./payout-terms.ts";
import { schema } from "./schema.sqlite.ts";

const p = sql.placeholder;

/**
 * The ledger on its SQLite file: statements prepared once on the one connection, queued by
 * SerialSqlite so that a transaction's statements are the only ones inside it.
 */
export function openSqliteLedgerStore(path: string, migrationsFolder: string): LedgerStore {
  const { sqlite, db } = openStore(path, schema, migrationsFolder);
  const serial = new SerialSqlite(sqlite);

  const q = ledgerStatements(sqliteDb(db), schema);
  const insertEvent = q
    .recordEvents(placeholders("paymentId", "status", "accountId", "shopId", "amountKopecks", "commissionKopecks", "netKopecks", "paidAt", "moscowDay", "occurredAt", "appliedAt"))
    .prepare();
  const addToBucket = q.addToBuckets({ accountId: p("accountId"), moscowDay: p("moscowDay"), amountKopecks: p("amountKopecks") }).prepare();
  const releasedSum = q.releasedSum(p("accountId"), p("lastReleasedDay")).prepare();
  const deleteReleased = q.deleteReleased(p("accountId"), p("lastReleasedDay")).prepare();
  const snapshot = q.snapshot(p("accountId"), p("lastReleasedDay")).prepare();
  const adjust = q.adjustAvailable(p("accountId"), p("deltaKopecks"), p("at")).prepare();
  const debitWithin = q.debitIfAvailable(p("accountId"), p("amountKopecks"), p("at")).prepare();
  const available = q.available(p("accountId")).prepare();
  const receiptDay = q.receiptDay(p("paymentId")).prepare();
  const frozenOfDay = q.frozenOfDay(p("accountId"), p("moscowDay")).prepare();
  const takeFrozen = q.takeFrozen(p("accountId"), p("moscowDay"), p("amountKopecks")).prepare();
  const holdOf = q.refundHold(p("refundId")).prepare();
  const putHold = q
    .putRefundHold(placeholders("refundId", "paymentId", "accountId", "state", "frozenDay", "frozenKopecks", "availableKopecks", "createdAt", "settledAt"))
    .prepare();
  const insertRefundEvent = q.recordRefundEvent(placeholders("refundId", "status", "paymentId", "accountId", "balanceKopecks", "occurredAt", "appliedAt")).prepare();

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
    ...payoutOps(sqliteDb(db), sqliteRun, schema),
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
