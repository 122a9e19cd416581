import { DomainError, type Payout, type PayoutList } from "@payaccept/contracts";
import { releaseDueReceipts } from "./balance.ts";
import { movePayout, payoutEvent, toPayout } from "./payout-states.ts";
import type { LedgerOps, LedgerStore } from "./store/ledger-store.ts";
import type { PayoutWithOrder } from "./store/payout-store.ts";
import { EXCHANGE_FILE_RAIL } from "./rails/exchange-file/export.ts";

export type PayoutRequest = { accountId: string; amountKopecks: number; idempotencyKey?: string; scheduled?: boolean };

/**
 * Records a PENDING payout (and its event) and takes its amount out of available in one
 * transaction; the conditional debit makes concurrent payouts unable to overdraw. A retry with the
 * same idempotency key returns the first payout instead of paying twice. `waitMs`: how long the
 * caller still waits; nothing is paid out after that (CallerGone). The payout is then sent by the
 * rail (docs/balance.md, "Payout rails").
 */
export function createPayout(store: LedgerStore, req: PayoutRequest, now: number, holdHour: number, waitMs?: number): Promise<{ payout: PayoutWithOrder; created: boolean }> {
  // The receipts whose hold has ended count as available.
  return store.tx(
    req.accountId,
    async (t) => {
      await releaseDueReceipts(t, req.accountId, now, holdHour);
      return createReleasedPayoutIn(t, req, now);
    },
    { waitMs },
  );
}

/**
 * createPayout's work inside the account's transaction, the account's due receipts already
 * released in it: the scheduler releases them to learn what is available, pays that out and moves
 * its schedule on, all in one transaction.
 */
export async function createReleasedPayoutIn(t: LedgerOps, req: PayoutRequest, now: number): Promise<{ payout: PayoutWithOrder; created: boolean }> {
  if (req.idempotencyKey !== undefined) {
    const earlier = await t.payoutByKey(req.accountId, req.idempotencyKey);
    if (earlier && earlier.amountKopecks !== req.amountKopecks) {
      throw new DomainError("PAYOUT_KEY_REUSED", { key: req.idempotencyKey, amountKopecks: earlier.amountKopecks });
    }
    if (earlier) return { payout: (await t.payout(earlier.id))!, created: false };
  }
  if (!(await t.debitIfAvailable(req.accountId, req.amountKopecks, now))) {
    throw new DomainError("PAYOUT_EXCEEDS_AVAILABLE", { payoutKopecks: req.amountKopecks, availableKopecks: await t.available(req.accountId) });
  }
  const row = await t.insertPayout({
    id: Bun.randomUUIDv7(),
    accountId: req.accountId,
    amountKopecks: req.amountKopecks,
    idempotencyKey: req.idempotencyKey ?? null,
    createdAt: now,
    scheduled: req.scheduled ?? false,
  });
  const payout = { payout: row, order: null };
  await t.addPayoutEvent({ payoutId: row.id, status: "PENDING", event: payoutEvent(payout, "PENDING", now) });
  return { payout, created: true };
}

/** One payout of the account; another account's is as absent as one that never existed. */
export async function getPayout(store: LedgerStore, accountId: string, id: string): Promise<Payout> {
  const found = await store.payout(id);
  if (!found || found.payout.accountId !== accountId) throw new DomainError("PAYOUT_NOT_FOUND");
  return toPayout(found);
}

/** A page, newest first, of the payouts older than startingAfter (a payout id of the previous page). */
export async function listPayouts(store: LedgerStore, accountId: string, limit: number, startingAfter?: string): Promise<PayoutList> {
  const rows = await store.latestPayouts(accountId, limit + 1, startingAfter);
  return { items: rows.slice(0, limit).map(toPayout), hasMore: rows.length > limit };
}

/**
 * What the bank said outside a statement, as the operator records it (a file the bank rejected
 * whole, a return that does not quote the reference): the payout moves as a statement line would
 * move it. The same outcome again is answered with the payout as it is; another is CONFLICT. A
 * payout sent through a bank's API takes no PAID or FAILED from the operator: the rail asks that
 * bank, and a FAILED recorded while the bank may still execute the order would pay it twice. A
 * return (money back on the platform's account after the order was executed) is recorded for any rail.
 */
export async function recordOutcome(store: LedgerStore, req: { payoutId: string; status: "PAID" | "FAILED" | "RETURNED"; reason?: string }, now: number): Promise<Payout> {
  const found = await store.payout(req.payoutId);
  if (!found) throw new DomainError("PAYOUT_NOT_FOUND");
  const rail = found.order?.rail;
  if (rail !== undefined && rail !== EXCHANGE_FILE_RAIL && req.status !== "RETURNED") throw new DomainError("PAYOUT_OUTCOME_BY_BANK", { rail });
  return store.tx(found.payout.accountId, async (t) => {
    const moved = await movePayout(t, req.payoutId, req.status, { at: now, ...(req.status === "PAID" ? {} : { failureReason: req.reason ?? null }) });
    if (moved) return toPayout(moved);
    const current = (await t.payout(req.payoutId))!;
    if (current.payout.status === req.status) return toPayout(current);
    throw new DomainError("PAYOUT_STATUS_CONFLICT", { status: current.payout.status, target: req.status });
  });
}
