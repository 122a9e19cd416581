import { DomainError, type Payout, type PayoutList } from "@payaccept/contracts";
import { releaseDueReceipts } from "./balance.ts";
import type { LedgerStore, PayoutRow } from "./store/ledger-store.ts";

export type PayoutRequest = { accountId: string; amountKopecks: number; idempotencyKey?: string };

const toPayout = (r: PayoutRow): Payout => ({
  id: r.id,
  accountId: r.accountId,
  amountKopecks: r.amountKopecks,
  status: r.status,
  createdAt: new Date(r.createdAt).toISOString(),
});

/**
 * Records a PENDING payout and takes its amount out of available in one transaction; the
 * conditional debit makes concurrent payouts unable to overdraw. A retry with the same
 * idempotency key returns the first payout instead of paying twice.
 */
export function createPayout(store: LedgerStore, req: PayoutRequest, now: number, holdHour: number): PayoutRow {
  return store.tx(() => {
    if (req.idempotencyKey !== undefined) {
      const earlier = store.payoutByKey(req.accountId, req.idempotencyKey);
      if (earlier && earlier.amountKopecks !== req.amountKopecks) {
        throw new DomainError("PAYOUT_KEY_REUSED", { key: req.idempotencyKey, amountKopecks: earlier.amountKopecks });
      }
      if (earlier) return earlier;
    }
    releaseDueReceipts(store, req.accountId, now, holdHour);
    if (!store.debitIfAvailable(req.accountId, req.amountKopecks, now)) {
      throw new DomainError("PAYOUT_EXCEEDS_AVAILABLE", { payoutKopecks: req.amountKopecks, availableKopecks: store.available(req.accountId) });
    }
    return store.insertPayout({
      id: Bun.randomUUIDv7(),
      accountId: req.accountId,
      amountKopecks: req.amountKopecks,
      idempotencyKey: req.idempotencyKey ?? null,
      createdAt: now,
    });
  });
}

/**
 * The emulated bank transfer: there is no real bank behind this stack, so a PENDING payout is
 * paid at once. A real rail would be called here and mark PAID (or FAILED and credit back) on its answer.
 */
export function settlePayout(store: LedgerStore, id: string, now: number): Payout {
  store.markPaid(id, now);
  return toPayout(store.payout(id)!);
}

/** Creates and settles; what the createPayout RPC does. */
export function payOut(store: LedgerStore, req: PayoutRequest, now: number, holdHour: number): Payout {
  return settlePayout(store, createPayout(store, req, now, holdHour).id, now);
}

/** After a crash between recording and settling, the payouts left PENDING are settled at start. */
export function settlePendingPayouts(store: LedgerStore, now: number): number {
  const ids = store.pendingPayoutIds();
  for (const id of ids) settlePayout(store, id, now);
  return ids.length;
}

/** A page, newest first, of the payouts older than startingAfter (a payout id of the previous page). */
export function listPayouts(store: LedgerStore, accountId: string, limit: number, startingAfter?: string): PayoutList {
  const rows = store.latestPayouts(accountId, limit + 1, startingAfter);
  return { items: rows.slice(0, limit).map(toPayout), hasMore: rows.length > limit };
}
