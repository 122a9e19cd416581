import type { PayoutStatus } from "@payaccept/contracts";
import type { NewRow, Row } from "@payaccept/platform/table";
import type { bankStatements, bankTokens, paymentOrders, payoutBatches, payoutEvents, payouts, payoutSchedules } from "./schema.ts";

/** The payouts' part of the ledger's store (payouts, their payment orders, exchange files, statements, events), on either engine. */

export type PayoutRow = Row<typeof payouts>;
export type NewPayout = { id: string; accountId: string; amountKopecks: number; idempotencyKey: string | null; createdAt: number; scheduled: boolean };
export type PaymentOrderRow = Row<typeof paymentOrders>;
export type NewPaymentOrder = Omit<NewRow<typeof paymentOrders>, "seq">;
/** A payout with its payment order once it has one. */
export type PayoutWithOrder = { payout: PayoutRow; order: PaymentOrderRow | null };
export type PayoutBatchRow = Row<typeof payoutBatches>;
export type BankStatementRow = Row<typeof bankStatements>;
export type PayoutEventRow = Row<typeof payoutEvents>;
export type NewPayoutEvent = Omit<NewRow<typeof payoutEvents>, "seq" | "publishedAt">;

export type PayoutScheduleRow = Row<typeof payoutSchedules>;
export type BankTokensRow = Row<typeof bankTokens>;
/** A refresh's answer: the new pair, the access token good until `accessExpiresAt`. */
export type TokenPair = { refreshToken: string; accessToken: string; accessExpiresAt: number };

/** What a status change sets beside the status: its time column, and the bank's words for a refusal or return. */
export type PayoutChange = { at: number; failureReason?: string | null };

export interface PayoutOps {
  insertPayout(r: NewPayout): Promise<PayoutRow>;
  payoutByKey(accountId: string, idempotencyKey: string): Promise<PayoutRow | undefined>;
  payout(id: string): Promise<PayoutWithOrder | undefined>;
  /** Newest first, only those older than `before` (a payout id) when given. */
  latestPayouts(accountId: string, limit: number, before?: string): Promise<PayoutWithOrder[]>;
  /**
   * Moves the payout to `to` when it is in one of `from`, the check and the change one statement;
   * undefined (nothing changed) otherwise, so a second attempt at the same change does nothing.
   */
  transitionPayout(id: string, from: readonly PayoutStatus[], to: PayoutStatus, change: PayoutChange): Promise<PayoutRow | undefined>;
  /** Every account's payouts in a status, oldest first (the operators' lists). */
  payoutsInStatus(status: PayoutStatus, limit: number): Promise<PayoutWithOrder[]>;
  /** Payouts not yet sent (PENDING) and sent but not yet ended (SENT): how many, and since when the oldest has been so. */
  openPayouts(): Promise<Record<"PENDING" | "SENT", { count: number; since: number | null }>>;
  /** The oldest PENDING payouts (of these accounts when given). */
  pendingPayouts(limit: number, accountIds?: readonly string[]): Promise<PayoutRow[]>;
  insertPaymentOrder(o: NewPaymentOrder): Promise<PaymentOrderRow>;
  /** The payouts whose orders carry these references (statement lines name them). */
  payoutsByReference(references: readonly string[]): Promise<PayoutWithOrder[]>;
  /** SENT payouts of an API rail in order, after the order `afterSeq` when given. */
  sentOnRail(rail: string, limit: number, afterSeq?: number): Promise<PayoutWithOrder[]>;
  markSubmitted(payoutId: string, at: number): Promise<void>;
  /** Which bank statement showed the payout debited, or returned. */
  markStatement(payoutId: string, line: "paid" | "returned", sha256: string): Promise<void>;
  insertBatch(row: PayoutBatchRow): Promise<void>;
  batch(id: string): Promise<PayoutBatchRow | undefined>;
  /** Newest first. */
  latestBatches(limit: number): Promise<PayoutBatchRow[]>;
  /** False when a statement with this SHA-256 was taken in before. */
  insertStatement(row: BankStatementRow): Promise<boolean>;
  statement(sha256: string): Promise<BankStatementRow | undefined>;
  /** The outbox: false when the payout's event of that status is there already. */
  addPayoutEvent(e: NewPayoutEvent): Promise<boolean>;
  /** Not yet published, in commit order. */
  unpublishedPayoutEvents(limit: number): Promise<PayoutEventRow[]>;
  markPayoutEventsPublished(seqs: readonly number[], at: number): Promise<void>;
  schedule(accountId: string): Promise<PayoutScheduleRow | undefined>;
  /** Inserts or replaces the account's schedule. */
  putSchedule(row: PayoutScheduleRow): Promise<void>;
  deleteSchedule(accountId: string): Promise<void>;
  /** Schedules due by `now`, the longest due first. */
  dueSchedules(now: number, limit: number): Promise<PayoutScheduleRow[]>;
  /** Moves a schedule's next run from `from` to `to`; false when it is no longer `from` (another replica ran it). */
  advanceSchedule(accountId: string, from: number, to: number): Promise<boolean>;
  bankTokens(rail: string): Promise<BankTokensRow | undefined>;
  /** Keeps the seed's refresh token unless the row already came from this very seed (same SHA-256). */
  seedBankTokens(rail: string, refreshToken: string, seedSha256: string, at: number): Promise<void>;
  /** Takes the rail's lease until `until`; false while another replica holds it. */
  leaseRail(rail: string, now: number, until: number): Promise<boolean>;
  /** Gives back the lease taken until `until`, if it is still that one: a pass that outlived it never frees another replica's. */
  releaseRail(rail: string, until: number): Promise<void>;
  /** Keeps the refreshed pair in place of `from`; false when `from` is no longer the kept token (a new seed came). */
  saveBankTokens(rail: string, from: string, pair: TokenPair, at: number): Promise<boolean>;
  /** Forgets an access token the bank no longer takes (401), so the next call refreshes. */
  dropAccessToken(rail: string, accessToken: string): Promise<void>;
}
