import type { PayoutStatus } from "@payaccept/contracts";
import { and, eq, inArray, isNull, sql, type Placeholder } from "drizzle-orm";
import type { OnEither } from "@payaccept/platform/table";
import type { PayoutChange } from "./payout-store.ts";
import type * as tables from "./schema.ts";

/** The terms both engines' payout statements share, on either schema's columns (docs/conventions.md, "One repository, two engines"). */

type Payouts = OnEither<typeof tables.payouts>;
type Orders = OnEither<typeof tables.paymentOrders>;
type Schedules = OnEither<typeof tables.payoutSchedules>;
type Value<T> = T | Placeholder;

/** The payout this idempotency key already made for the account. */
export const payoutOfKey = (p: Payouts, accountId: Value<string>, idempotencyKey: Value<string>) => and(eq(p.accountId, accountId), eq(p.idempotencyKey, idempotencyKey));

/** A status change's check, made by the UPDATE itself: the payout is still in one of the statuses it may leave. */
export const payoutIn = (p: Payouts, id: string, from: readonly PayoutStatus[]) => and(eq(p.id, id), inArray(p.status, [...from]));

/** Each status's time column. */
const TIME_OF = { PENDING: "createdAt", SENT: "sentAt", PAID: "paidAt", FAILED: "failedAt", RETURNED: "returnedAt" } as const;

/** What a change to `to` sets: the status, its time, and the bank's words when it gave some. */
export const transitionSet = (to: PayoutStatus, change: PayoutChange) => ({
  status: to,
  [TIME_OF[to]]: change.at,
  ...(change.failureReason !== undefined ? { failureReason: change.failureReason } : {}),
});

/** A payout with its payment order (null until sent): select shape and join condition. */
export const withOrder = <P extends Payouts, O extends Orders>(p: P, o: O) => ({ payout: p, order: o });
export const orderOfPayout = (p: Payouts, o: Orders) => eq(o.payoutId, p.id);

/** SENT on a rail, and (unsubmitted) not yet confirmed by its bank. */
export const sentOn = (p: Payouts, o: Orders, rail: string, unsubmitted: boolean) =>
  and(eq(p.status, "SENT"), eq(o.rail, rail), unsubmitted ? isNull(o.submittedAt) : undefined);

/** Which statement column a matched line fills. */
export const statementColumn = (line: "paid" | "returned") => (line === "paid" ? "paidStatement" : "returnedStatement");

/** A schedule whose next run is still `at`: moving it on checks that in the same statement. */
export const scheduleAt = (s: Schedules, accountId: string, at: number) => and(eq(s.accountId, accountId), eq(s.nextRunAt, at));

/** What a second putSchedule of one account replaces: every column but the key. */
export const REPLACE_SCHEDULE = {
  frequency: sql`excluded.frequency`,
  weekday: sql`excluded.weekday`,
  time: sql`excluded.time`,
  minimumKopecks: sql`excluded.minimum_kopecks`,
  nextRunAt: sql`excluded.next_run_at`,
  updatedAt: sql`excluded.updated_at`,
};
