import { and, eq, gt, inArray, sql, type SQL } from "drizzle-orm";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import { sqlStateOf, storeNow, type PgStore } from "@payaccept/platform";
import { CallerGone, Patience, type BalanceSnapshot, type FrozenAddition, type LedgerOps, type LedgerStore } from "./ledger-store.ts";
import { addToBucketSet, adjustAvailableSet, availableCovers, bucketCovers, bucketOfDay, releasedBuckets, releasedSums, REPLACE_HOLD_FIGURES, successOf } from "./ledger-terms.ts";
import { pgPayoutOps } from "./payout-store.pg.ts";
import { accounts, appliedEvents, appliedRefundEvents, frozenBuckets, refundHolds, schema } from "./schema.pg.ts";

type Db = BunSQLDatabase<typeof schema>;
/** The pool's database or a transaction's: the statements are the same. */
type Runner = Pick<Db, "select" | "insert" | "update" | "delete" | "execute">;

const ofAccount = (accountId: string) => eq(frozenBuckets.accountId, accountId);

/**
 * The ledger on PostgreSQL (docs/balance.md, "Locks"). Statements are built per call on the
 * runner given (the pool, or the open transaction); Bun.SQL prepares each text once per
 * connection, so a repeated statement is parsed and planned once.
 */
function pgOps(db: Runner): LedgerOps {
  const first = async <R>(rows: Promise<R[]>) => (await rows)[0];
  return {
    // One statement for the batch: a round trip each was most of a batch's time.
    recordEvents: async (es) => {
      const inserted = await db
        .insert(appliedEvents)
        .values([...es])
        .onConflictDoNothing()
        .returning({ paymentId: appliedEvents.paymentId, status: appliedEvents.status });
      const fresh = new Set(inserted.map((r) => eventKey(r.paymentId, r.status)));
      // A second copy in the same list was skipped by the key: only the first counts as new.
      return es.map((e) => fresh.delete(eventKey(e.paymentId, e.status)));
    },
    addFrozen: (accountId, moscowDay, amountKopecks) => addToBuckets(db, [{ accountId, moscowDay, amountKopecks }]),
    addFrozenSums: (sums) => addToBuckets(db, sums),
    releasedFrozen: async (accountId, lastReleasedDay) =>
      (await first(
        db
          .select(releasedSums(frozenBuckets))
          .from(frozenBuckets)
          .where(releasedBuckets(frozenBuckets, accountId, lastReleasedDay)),
      ))!,
    deleteReleasedFrozen: async (accountId, lastReleasedDay) => {
      await db.delete(frozenBuckets).where(releasedBuckets(frozenBuckets, accountId, lastReleasedDay));
    },
    balanceSnapshot: async (accountId, lastReleasedDay) => toSnapshot(await db.execute(snapshotOf(accountId, lastReleasedDay))),
    available: async (accountId) =>
      (await first(db.select({ v: accounts.availableKopecks }).from(accounts).where(eq(accounts.accountId, accountId))))?.v ?? 0,
    adjustAvailable: async (accountId, deltaKopecks, at) => {
      await db
        .insert(accounts)
        .values({ accountId, availableKopecks: deltaKopecks, updatedAt: at })
        .onConflictDoUpdate({
          target: accounts.accountId,
          set: adjustAvailableSet(accounts),
        });
    },
    debitIfAvailable: async (accountId, amountKopecks, at) =>
      (
        await db
          .update(accounts)
          .set({ availableKopecks: sql`${accounts.availableKopecks} - ${amountKopecks}`, updatedAt: at })
          .where(availableCovers(accounts, accountId, amountKopecks))
          .returning({ v: accounts.availableKopecks })
      ).length > 0,
    receiptDay: async (paymentId) =>
      (await first(
        db
          .select({ day: appliedEvents.moscowDay })
          .from(appliedEvents)
          .where(successOf(appliedEvents, paymentId)),
      ))?.day ?? undefined,
    frozenOfDay: async (accountId, moscowDay) =>
      (await first(
        db.select({ v: frozenBuckets.amountKopecks }).from(frozenBuckets).where(bucketOfDay(frozenBuckets, accountId, moscowDay)),
      ))?.v ?? 0,
    takeFrozen: async (accountId, moscowDay, amountKopecks) =>
      (
        await db
          .update(frozenBuckets)
          .set({ amountKopecks: sql`${frozenBuckets.amountKopecks} - ${amountKopecks}` })
          .where(bucketCovers(frozenBuckets, accountId, moscowDay, amountKopecks))
          .returning({ v: frozenBuckets.amountKopecks })
      ).length > 0,
    refundHold: (refundId) => first(db.select().from(refundHolds).where(eq(refundHolds.refundId, refundId))),
    putRefundHold: async (h) => {
      await db
        .insert(refundHolds)
        .values(h)
        .onConflictDoUpdate({
          target: refundHolds.refundId,
          set: REPLACE_HOLD_FIGURES,
        });
    },
    recordRefundEvent: async (e) =>
      (await db.insert(appliedRefundEvents).values(e).onConflictDoNothing().returning({ id: appliedRefundEvents.refundId })).length > 0,
    ...pgPayoutOps(db),
  };
}

const eventKey = (paymentId: string, status: string) => `${paymentId}\u0000${status}`;

/** Several buckets in one statement; each (account, day) once, as ON CONFLICT DO UPDATE requires. */
async function addToBuckets(db: Runner, sums: readonly FrozenAddition[]): Promise<void> {
  await db
    .insert(frozenBuckets)
    .values([...sums])
    .onConflictDoUpdate({
      target: [frozenBuckets.accountId, frozenBuckets.moscowDay],
      set: addToBucketSet(frozenBuckets),
    });
}

/** The GET's one statement: the account's available, its frozen past the cut-off, its buckets due. */
function snapshotOf(accountId: string, lastReleasedDay: string): SQL {
  return sql`select
    coalesce((select ${accounts.availableKopecks} from ${accounts} where ${eq(accounts.accountId, accountId)}), 0)::text as available,
    coalesce((select sum(${frozenBuckets.amountKopecks}) from ${frozenBuckets} where ${and(ofAccount(accountId), gt(frozenBuckets.moscowDay, lastReleasedDay))}), 0)::text as frozen,
    (select count(*) from ${frozenBuckets} where ${releasedBuckets(frozenBuckets, accountId, lastReleasedDay)})::int as due`;
}

function toSnapshot(rows: unknown): BalanceSnapshot {
  const [row] = rows as { available: string; frozen: string; due: number }[];
  return { availableKopecks: Number(row!.available), frozenKopecks: Number(row!.frozen), dueBuckets: row!.due };
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
