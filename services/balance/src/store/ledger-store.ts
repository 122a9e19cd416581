import type { NewRow, Row } from "@payaccept/platform/table";
import type { PayoutOps } from "./payout-store.ts";
import type { appliedEvents, appliedRefundEvents, refundHolds } from "./schema.ts";

/** The ledger's store as its users see it, whichever engine holds it; open-ledger-store.ts opens it. */

export type AppliedEvent = NewRow<typeof appliedEvents>;
export type RefundHoldRow = Row<typeof refundHolds>;
export type AppliedRefundEvent = NewRow<typeof appliedRefundEvents>;
/** Kopecks to add to an account's frozen bucket of a Moscow day. */
export type FrozenAddition = { accountId: string; moscowDay: string; amountKopecks: number };
/** An account's balance as stored, and how many of its hold buckets are due for release at the cut-off. */
export type BalanceSnapshot = { availableKopecks: number; frozenKopecks: number; dueBuckets: number };

/**
 * The ledger's statements, the same on SQLite and PostgreSQL (docs/conventions.md, "One
 * repository, two engines"). Inside tx() they go through the transaction's handle.
 */
export interface LedgerOps extends PayoutOps {
  /** One flag per event, in order: false when its (paymentId, status) was applied before, or earlier in the same list. */
  recordEvents(es: readonly Required<AppliedEvent>[]): Promise<boolean[]>;
  addFrozen(accountId: string, moscowDay: string, amountKopecks: number): Promise<void>;
  /** addFrozen of each, one (account, day) at most once in the list. */
  addFrozenSums(sums: readonly FrozenAddition[]): Promise<void>;
  releasedFrozen(accountId: string, lastReleasedDay: string): Promise<{ total: number; buckets: number }>;
  deleteReleasedFrozen(accountId: string, lastReleasedDay: string): Promise<void>;
  /** One statement: available, frozen past the cut-off, and buckets due at it. */
  balanceSnapshot(accountId: string, lastReleasedDay: string): Promise<BalanceSnapshot>;
  available(accountId: string): Promise<number>;
  adjustAvailable(accountId: string, deltaKopecks: number, at: number): Promise<void>;
  /** False (and nothing taken) when the available balance is smaller than the amount: the check and the debit are one statement. */
  debitIfAvailable(accountId: string, amountKopecks: number, at: number): Promise<boolean>;
  /** The Moscow day whose frozen bucket the payment's receipt went into; undefined before its SUCCESS is applied. */
  receiptDay(paymentId: string): Promise<string | undefined>;
  frozenOfDay(accountId: string, moscowDay: string): Promise<number>;
  /** False (and nothing taken) when the day's bucket holds less. */
  takeFrozen(accountId: string, moscowDay: string, amountKopecks: number): Promise<boolean>;
  refundHold(refundId: string): Promise<RefundHoldRow | undefined>;
  /** Inserts the refund's hold, or replaces its state and figures. */
  putRefundHold(h: RefundHoldRow): Promise<void>;
  /** False when the refund's end was applied before. */
  recordRefundEvent(e: Required<AppliedRefundEvent>): Promise<boolean>;
}

/**
 * A unit given up because its caller stopped waiting before it could commit (tx's `waitMs`):
 * rolled back, nothing of it kept.
 */
export class CallerGone extends Error {
  constructor() {
    super("the caller stopped waiting before the unit could commit; rolled back");
  }
}

/** What is left of a unit's `waitMs`, from its tx() call; each engine checks it before the body and before the commit. */
export class Patience {
  private readonly until: number;
  constructor(waitMs: number) {
    this.until = performance.now() + waitMs;
  }

  /** Whole ms left, at least 1; CallerGone when none is. */
  leftMs(): number {
    const ms = Math.floor(this.until - performance.now());
    if (ms < 1) throw new CallerGone();
    return ms;
  }
}

export interface LedgerStore extends LedgerOps {
  /**
   * One atomic unit of work on one account (or several: a batch of events), serialised with every
   * other unit on those accounts, from any process on any host: on SQLite by the file's write lock
   * (BEGIN IMMEDIATE), on PostgreSQL by the accounts' rows (SELECT … FOR UPDATE, in account order).
   * The body uses `t`, never the store. With `waitMs` (how long its caller still waits) the unit
   * never commits after that: it is rolled back with CallerGone instead, and on PostgreSQL the
   * wait for the accounts' rows ends then (lock_timeout), so a queue on a busy account sheds what
   * nobody waits for any more.
   */
  tx<T>(accounts: string | readonly string[], fn: (t: LedgerOps) => Promise<T>, opts?: { waitMs?: number }): Promise<T>;
  close(): Promise<void>;
}
