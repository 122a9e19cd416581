import { and, eq, gt, gte, lte, sql } from "drizzle-orm";
import { fromExcluded, type Db, type Dialect, type EitherTables, type Value, type Values } from "@payaccept/platform";
import type { OnEither } from "@payaccept/platform/table";
import type * as tables from "./schema.ts";

/**
 * What both engines' ledger statements share, on either schema's columns: the terms, and at the
 * end (`ledgerStatements`) the statements themselves; each engine file keeps only how they run
 * (prepared on SQLite, awaited on PostgreSQL, and its row locks). A value may be a placeholder,
 * for SQLite's prepared statements.
 */

type Accounts = OnEither<typeof tables.accounts>;
type AppliedEvents = OnEither<typeof tables.appliedEvents>;
type FrozenBuckets = OnEither<typeof tables.frozenBuckets>;
type AppliedRefundEvents = OnEither<typeof tables.appliedRefundEvents>;
type RefundHolds = OnEither<typeof tables.refundHolds>;

/** The account's buckets released by now: every Moscow day up to the last released one. */
const releasedBuckets = (f: FrozenBuckets, accountId: Value<string>, lastReleasedDay: Value<string>) =>
  and(eq(f.accountId, accountId), lte(f.moscowDay, lastReleasedDay));

/** What the released buckets hold together, and how many they are (PostgreSQL sums a bigint as numeric, hence the Number). */
const releasedSums = (f: FrozenBuckets) => ({ total: sql`coalesce(sum(${f.amountKopecks}), 0)`.mapWith(Number), buckets: sql`count(*)`.mapWith(Number) });

/** The account's bucket of one Moscow day. */
const bucketOfDay = (f: FrozenBuckets, accountId: Value<string>, moscowDay: Value<string>) => and(eq(f.accountId, accountId), eq(f.moscowDay, moscowDay));

/** The check of a take from a bucket, made by the UPDATE itself: the bucket holds the amount. */
const bucketCovers = (f: FrozenBuckets, accountId: Value<string>, moscowDay: Value<string>, amountKopecks: Value<number>) =>
  and(bucketOfDay(f, accountId, moscowDay), gte(f.amountKopecks, amountKopecks));

/** The check of a debit, made by the UPDATE itself, so no interleaving can take the same money twice. */
const availableCovers = (a: Accounts, accountId: Value<string>, amountKopecks: Value<number>) =>
  and(eq(a.accountId, accountId), gte(a.availableKopecks, amountKopecks));

/** A bucket's upsert adds to what the day holds. */
const addToBucketSet = (f: FrozenBuckets) => ({ amountKopecks: sql`${f.amountKopecks} + excluded.amount_kopecks` });

/** An account's upsert adds the delta to what is available. */
const adjustAvailableSet = (a: Accounts) => ({ availableKopecks: sql`${a.availableKopecks} + excluded.available_kopecks`, updatedAt: sql`excluded.updated_at` });

/** The payment's applied SUCCESS event (its day is the day its money froze). */
const successOf = (e: AppliedEvents, paymentId: Value<string>) => and(eq(e.paymentId, paymentId), eq(e.status, "SUCCESS"));

/**
 * The statements of the ledger, the same on both engines, built on `db` (the file, the pool or a
 * transaction) over that engine's tables `t`.
 */
export function ledgerStatements<E extends Dialect>(db: Db<E>, t: EitherTables<typeof tables.tables>) {
  const { accounts: a, appliedEvents: e, appliedRefundEvents: re, frozenBuckets: f, refundHolds: h } = t;
  return {
    /** An event applied before is skipped: it is missing from RETURNING. */
    recordEvents: (rows: Values<AppliedEvents> | Values<AppliedEvents>[]) => db.insert(e).values(rows).onConflictDoNothing().returning({ paymentId: e.paymentId, status: e.status }),
    /** Each (account, day) once in `rows`, as ON CONFLICT DO UPDATE requires. */
    addToBuckets: (rows: Values<FrozenBuckets> | Values<FrozenBuckets>[]) =>
      db.insert(f).values(rows).onConflictDoUpdate({ target: [f.accountId, f.moscowDay], set: addToBucketSet(f) }),
    releasedSum: (accountId: Value<string>, lastReleasedDay: Value<string>) => db.select(releasedSums(f)).from(f).where(releasedBuckets(f, accountId, lastReleasedDay)),
    deleteReleased: (accountId: Value<string>, lastReleasedDay: Value<string>) => db.delete(f).where(releasedBuckets(f, accountId, lastReleasedDay)),
    /** The balance's one read: the account's available, its frozen past the cut-off, its buckets due at it. */
    snapshot: (accountId: Value<string>, lastReleasedDay: Value<string>) =>
      db
        .select({
          availableKopecks: sql<number>`coalesce((select ${a.availableKopecks} from ${a} where ${eq(a.accountId, accountId)}), 0)`.mapWith(Number),
          frozenKopecks: sql<number>`coalesce((select sum(${f.amountKopecks}) from ${f} where ${and(eq(f.accountId, accountId), gt(f.moscowDay, lastReleasedDay))}), 0)`.mapWith(Number),
          dueBuckets: sql<number>`(select count(*) from ${f} where ${releasedBuckets(f, accountId, lastReleasedDay)})`.mapWith(Number),
        })
        .from(sql`(select 1) as one`),
    available: (accountId: Value<string>) => db.select({ availableKopecks: a.availableKopecks }).from(a).where(eq(a.accountId, accountId)),
    /** The account's row gains the delta (`availableKopecks` holds it), made on its first change. */
    adjustAvailable: (accountId: Value<string>, deltaKopecks: Value<number>, at: Value<number>) =>
      db.insert(a).values({ accountId, availableKopecks: deltaKopecks, updatedAt: at }).onConflictDoUpdate({ target: a.accountId, set: adjustAvailableSet(a) }),
    /** The check and the debit in one statement: nothing comes back when the available balance is smaller. */
    debitIfAvailable: (accountId: Value<string>, amountKopecks: Value<number>, at: Value<number>) =>
      db
        .update(a)
        .set({ availableKopecks: sql`${a.availableKopecks} - ${amountKopecks}`, updatedAt: at })
        .where(availableCovers(a, accountId, amountKopecks))
        .returning({ availableKopecks: a.availableKopecks }),
    receiptDay: (paymentId: Value<string>) => db.select({ moscowDay: e.moscowDay }).from(e).where(successOf(e, paymentId)),
    frozenOfDay: (accountId: Value<string>, moscowDay: Value<string>) => db.select({ amountKopecks: f.amountKopecks }).from(f).where(bucketOfDay(f, accountId, moscowDay)),
    /** Nothing comes back when the day's bucket holds less. */
    takeFrozen: (accountId: Value<string>, moscowDay: Value<string>, amountKopecks: Value<number>) =>
      db
        .update(f)
        .set({ amountKopecks: sql`${f.amountKopecks} - ${amountKopecks}` })
        .where(bucketCovers(f, accountId, moscowDay, amountKopecks))
        .returning({ amountKopecks: f.amountKopecks }),
    refundHold: (refundId: Value<string>) => db.select().from(h).where(eq(h.refundId, refundId)),
    /** A second hold of one refund replaces its figures. */
    putRefundHold: (row: Values<RefundHolds>) => db.insert(h).values(row).onConflictDoUpdate({ target: h.refundId, set: fromExcluded(h, ["state", "frozenDay", "frozenKopecks", "availableKopecks", "settledAt"]) }),
    /** A refund's end applied before is skipped: nothing comes back. */
    recordRefundEvent: (row: Values<AppliedRefundEvents>) => db.insert(re).values(row).onConflictDoNothing().returning({ refundId: re.refundId }),
  };
}
