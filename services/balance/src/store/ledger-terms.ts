import { and, eq, gte, lte, sql, type Placeholder } from "drizzle-orm";
import type { OnEither } from "@payaccept/platform/table";
import type * as tables from "./schema.ts";

/**
 * The terms both engines' ledger statements share, on either schema's columns: each engine file
 * keeps only its own statements (prepared ones on SQLite, row locks on PostgreSQL) around them. A
 * value may be a placeholder, for SQLite's prepared statements.
 */

type Accounts = OnEither<typeof tables.accounts>;
type AppliedEvents = OnEither<typeof tables.appliedEvents>;
type FrozenBuckets = OnEither<typeof tables.frozenBuckets>;
type Value<T> = T | Placeholder;

/** The account's buckets released by now: every Moscow day up to the last released one. */
export const releasedBuckets = (f: FrozenBuckets, accountId: Value<string>, lastReleasedDay: Value<string>) =>
  and(eq(f.accountId, accountId), lte(f.moscowDay, lastReleasedDay));

/** What the released buckets hold together, and how many they are (PostgreSQL sums a bigint as numeric, hence the Number). */
export const releasedSums = (f: FrozenBuckets) => ({ total: sql`coalesce(sum(${f.amountKopecks}), 0)`.mapWith(Number), buckets: sql`count(*)`.mapWith(Number) });

/** The account's bucket of one Moscow day. */
export const bucketOfDay = (f: FrozenBuckets, accountId: Value<string>, moscowDay: Value<string>) => and(eq(f.accountId, accountId), eq(f.moscowDay, moscowDay));

/** The check of a take from a bucket, made by the UPDATE itself: the bucket holds the amount. */
export const bucketCovers = (f: FrozenBuckets, accountId: Value<string>, moscowDay: Value<string>, amountKopecks: Value<number>) =>
  and(bucketOfDay(f, accountId, moscowDay), gte(f.amountKopecks, amountKopecks));

/** The check of a debit, made by the UPDATE itself, so no interleaving can take the same money twice. */
export const availableCovers = (a: Accounts, accountId: Value<string>, amountKopecks: Value<number>) =>
  and(eq(a.accountId, accountId), gte(a.availableKopecks, amountKopecks));

/** A bucket's upsert adds to what the day holds. */
export const addToBucketSet = (f: FrozenBuckets) => ({ amountKopecks: sql`${f.amountKopecks} + excluded.amount_kopecks` });

/** An account's upsert adds the delta to what is available. */
export const adjustAvailableSet = (a: Accounts) => ({ availableKopecks: sql`${a.availableKopecks} + excluded.available_kopecks`, updatedAt: sql`excluded.updated_at` });

/** The payment's applied SUCCESS event (its day is the day its money froze). */
export const successOf = (e: AppliedEvents, paymentId: Value<string>) => and(eq(e.paymentId, paymentId), eq(e.status, "SUCCESS"));

/** What a second putRefundHold of one refund replaces. */
export const REPLACE_HOLD_FIGURES = {
  state: sql`excluded.state`,
  frozenDay: sql`excluded.frozen_day`,
  frozenKopecks: sql`excluded.frozen_kopecks`,
  availableKopecks: sql`excluded.available_kopecks`,
  settledAt: sql`excluded.settled_at`,
};
