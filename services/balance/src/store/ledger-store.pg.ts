import { eq, inArray, sql } from "drizzle-orm";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import { firstRow as first, pgDb, pgRun, sqlStateOf, storeNow, type PgStore } from "@payaccept/platform";
import { CallerGone, Patience, type LedgerOps, type LedgerStore } from "./ledger-store.ts";
import { ledgerStatements } from "./ledger-terms.ts";
import { payoutOps } from "./payout-terms.ts";
import { accounts, schema } from "./schema.pg.ts";

type Db = BunSQLDatabase<typeof schema>;
/** The pool's database or a transaction's: the statements are the same. */
type Runner = Pick<Db, "select" | "insert" | "update" | "delete" | "execute">;

const eventKey = (paymentId: string, status: string) => `${paymentId}\u0000${status}`;

/**
 * The ledger on PostgreSQL (docs/balance.md, "Locks"). Statements are built per call on the
 * runner given (the pool, or the open transaction); Bun.SQL prepares each text once per
 * connection, so a repeated statement is parsed and planned once.
 */
function pgOps(db: Runner): LedgerOps {
  const q = ledgerStatements(pgDb(db), schema);
  return {
    // One statement for the batch (SQLite: one prepared INSERT per event, microseconds each): a
    // round trip each was most of a batch's time.
    recordEvents: async (es) => {
      const fresh = new Set((await q.recordEvents([...es])).map((r) => eventKey(r.paymentId, r.status)));
      // A second copy in the same list was skipped by the key: only the first counts as new.
      return es.map((e) => fresh.delete(eventKey(e.paymentId, e.status)));
    },
    addFrozen: async (accountId, moscowDay, amountKopecks) => void (await q.addToBuckets({ accountId, moscowDay, amountKopecks })),
    // Several buckets in one statement (SQLite: one prepared upsert each).
    addFrozenSums: async (sums) => void (await q.addToBuckets([...sums])),
    releasedFrozen: async (accountId, lastReleasedDay) => (await first(q.releasedSum(accountId, lastReleasedDay)))!,
    deleteReleasedFrozen: async (accountId, lastReleasedDay) => void (await q.deleteReleased(accountId, lastReleasedDay)),
    balanceSnapshot: async (accountId, lastReleasedDay) => (await first(q.snapshot(accountId, lastReleasedDay)))!,
    available: async (accountId) => (await first(q.available(accountId)))?.availableKopecks ?? 0,
    adjustAvailable: async (accountId, deltaKopecks, at) => void (await q.adjustAvailable(accountId, deltaKopecks, at)),
    debitIfAvailable: async (accountId, amountKopecks, at) => (await q.debitIfAvailable(accountId, amountKopecks, at)).length > 0,
    receiptDay: async (paymentId) => (await first(q.receiptDay(paymentId)))?.moscowDay ?? undefined,
    frozenOfDay: async (accountId, moscowDay) => (await first(q.frozenOfDay(accountId, moscowDay)))?.amountKopecks ?? 0,
    takeFrozen: async (accountId, moscowDay, amountKopecks) => (await q.takeFrozen(accountId, moscowDay, amountKopecks)).length > 0,
    refundHold: (refundId) => first(q.refundHold(refundId)),
    putRefundHold: async (h) => void (await q.putRefundHold(h)),
    recordRefundEvent: async (e) => (await q.recordRefundEvent(e)).length > 0,
    ...payoutOps(pgDb(db), pgRun, schema),
  };
}

/**
 * Takes the accounts' row locks for the rest of the transaction: every unit that reads an
 * account's money and then writes it starts here, so two units on one account (payouts and
 * refund holds from replicas on different hosts, a batch of events being applied) run one after
 * the other. A first unit on a new account creates its row (0 available) to have something to
 * lock. Several accounts (a batch) are locked in one statement in account order, and missing
 * rows are inserted in that order too, so two batches sharing accounts wait for each other
 * instead of deadlocking.
 */
async function lockAccounts(tx: Runner, ids: readonly string[], at: number): Promise<void> {
  const lockRows = () =>
    tx
      .select({ id: accounts.accountId })
      .from(accounts)
      .where(ids.length === 1 ? eq(accounts.accountId, ids[0]!) : inArray(accounts.accountId, [...ids]))
      .orderBy(accounts.accountId)
      .for("update");
  const found = await lockRows();
  if (found.length === ids.length) return;
  const present = new Set(found.map((r) => r.id));
  const missing = ids.filter((id) => !present.has(id));
  await tx
    .insert(accounts)
    .values(missing.map((accountId) => ({ accountId, availableKopecks: 0, updatedAt: at })))
    .onConflictDoNothing();
  await lockRows();
}

/** SQLSTATEs of a wait cut off by the caller's patience: lock_not_available (lock_timeout), query_canceled (statement_timeout). */
const OUT_OF_TIME = new Set(["55P03", "57014"]);

export function openPgLedgerStore({ db, close }: PgStore<typeof schema>): LedgerStore {
  return {
    ...pgOps(db),
    tx: (accountIds, fn, opts) => {
      const patience = opts?.waitMs === undefined ? undefined : new Patience(opts.waitMs);
      return db.transaction(async (tx) => {
        if (patience) {
          // What is left once the pool gave a connection bounds the wait for the rows, in place of
          // the server-wide statement timeout, which cut a long queue on one account short (INTERNAL)
          // while its callers still waited.
          const ms = String(patience.leftMs());
          await tx.execute(sql`select set_config('lock_timeout', ${ms}, true), set_config('statement_timeout', ${ms}, true)`);
        }
        await lockAccounts(tx, [...new Set(typeof accountIds === "string" ? [accountIds] : accountIds)].sort(), storeNow()).catch((e: unknown) => {
          throw patience && OUT_OF_TIME.has(sqlStateOf(e) ?? "") ? new CallerGone() : e;
        });
        const value = await fn(pgOps(tx));
        patience?.leftMs();
        return value;
      });
    },
    close,
  };
}
