import { DomainError } from "@payaccept/contracts";
import { exceedsAvailable, releaseDueReceipts } from "./balance.ts";
import type { LedgerStore } from "./store/ledger-store.ts";

/**
 * Takes a refund's amount out of the available balance before the provider is asked, so two
 * refunds (or a refund and a payout) can never spend the same money. Unique per payment: a repeat
 * for a payment that is already reserved or refunded changes nothing.
 */
export function reserveRefund(
  store: LedgerStore,
  req: { accountId: string; paymentId: string; amountKopecks: number },
  now: number,
  holdHour: number,
): { reserved: true } {
  return store.tx(() => {
    if (store.refundOf(req.paymentId)) return { reserved: true };
    releaseDueReceipts(store, req.accountId, now, holdHour);
    if (!store.debitIfAvailable(req.accountId, req.amountKopecks, now)) {
      throw new DomainError("CONFLICT", exceedsAvailable("refund", req.amountKopecks, store.available(req.accountId)));
    }
    store.insertRefund({ ...req, reservedAt: now, refundedAt: null });
    return { reserved: true };
  });
}

/** Gives a reserve back when the provider refused the refund; a refund that happened stays. */
export function releaseRefund(store: LedgerStore, req: { accountId: string; paymentId: string }, now: number): { released: boolean } {
  return store.tx(() => {
    const reserve = store.deletePendingRefund(req.paymentId, req.accountId);
    if (reserve) store.adjustAvailable(reserve.accountId, reserve.amountKopecks, now);
    return { released: reserve !== undefined };
  });
}

/**
 * Applies a live REFUNDED event (inside the event's transaction): the refund leaves available
 * exactly once. A reserve is swapped for the event's own figure, so the result is right even if
 * the reserve was made for another amount; without a reserve the money is taken all the same,
 * even into a negative available, because the provider has already paid the buyer.
 */
export function takeBackRefund(store: LedgerStore, e: { paymentId: string; accountId: string; netKopecks: number }, now: number): void {
  const reserve = store.refundOf(e.paymentId);
  if (reserve) {
    store.adjustAvailable(reserve.accountId, reserve.amountKopecks, now);
    store.markRefunded(e.paymentId, e.accountId, e.netKopecks, now);
  } else {
    store.insertRefund({ paymentId: e.paymentId, accountId: e.accountId, amountKopecks: e.netKopecks, reservedAt: null, refundedAt: now });
  }
  store.adjustAvailable(e.accountId, -e.netKopecks, now);
}
