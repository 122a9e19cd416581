import { payoutEventId, type Payout, type PayoutEvent, type PayoutStatus } from "@payaccept/contracts";
import type { LedgerOps } from "./store/ledger-store.ts";
import type { PayoutChange, PayoutWithOrder } from "./store/payout-store.ts";

/**
 * The payout state machine, the one place its statuses change (docs/balance.md, "Payout
 * statuses"): for each status, the statuses it may be reached from. PENDING is where a payout
 * starts (createPayout); FAILED and RETURNED are where its money comes back.
 */
export const REACHED_FROM: Record<PayoutStatus, readonly PayoutStatus[]> = {
  PENDING: [],
  SENT: ["PENDING"],
  PAID: ["SENT"],
  // Refused before it was debited: by the rail before it went (its details, a bank's 4xx), or by the bank after.
  FAILED: ["PENDING", "SENT"],
  // Debited, then sent back; a return seen before the debit's own line (one statement holds both) is a return too.
  RETURNED: ["SENT", "PAID"],
};

/** Statuses whose payout's amount goes back to the available balance, when it reaches them. */
const GIVES_BACK: ReadonlySet<PayoutStatus> = new Set<PayoutStatus>(["FAILED", "RETURNED"]);

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A payout as the API, the dashboard and its webhook show it. */
export function toPayout({ payout: p, order: o }: PayoutWithOrder): Payout {
  return {
    id: p.id,
    accountId: p.accountId,
    amountKopecks: p.amountKopecks,
    status: p.status,
    createdAt: new Date(p.createdAt).toISOString(),
    scheduled: p.scheduled,
    order: o
      ? {
          number: orderNumber(o.seq),
          date: o.date,
          reference: o.reference,
          rail: o.rail,
          recipientName: o.payee.payout.recipientName,
          bik: o.payee.payout.bik,
          account: o.payee.payout.account,
          purpose: o.purpose,
        }
      : null,
    sentAt: iso(p.sentAt),
    paidAt: iso(p.paidAt),
    failedAt: iso(p.failedAt),
    returnedAt: iso(p.returnedAt),
    failureReason: p.failureReason,
  };
}

/**
 * A payment order's number as banks take it: 1 to 999 999 (the format's six digits), counted on
 * from the order's sequence; the date and the reference in its purpose tell two orders apart
 * after the count wraps.
 */
export const orderNumber = (seq: number) => ((seq - 1) % 999_999) + 1;

export function payoutEvent(p: PayoutWithOrder, status: PayoutStatus, at: number): PayoutEvent {
  return { eventId: payoutEventId(p.payout.id, status), accountId: p.payout.accountId, status, payout: toPayout(p), occurredAt: new Date(at).toISOString() };
}

/**
 * Moves a payout to `to`, inside the account's transaction (LedgerStore.tx): the status change
 * (one conditional UPDATE), the amount back on the available balance for FAILED and RETURNED, and
 * the event for the outbox, committed together. Undefined when the payout is not in a status `to`
 * is reached from, a repeat among them: nothing changes then, so money comes back exactly once.
 */
export async function movePayout(
  t: LedgerOps,
  id: string,
  to: PayoutStatus,
  change: PayoutChange,
  /** What else the change writes before its event is taken (the payment order of a SENT). */
  alsoWrite?: () => Promise<void>,
): Promise<PayoutWithOrder | undefined> {
  const moved = await t.transitionPayout(id, REACHED_FROM[to], to, change);
  if (!moved) return undefined;
  await alsoWrite?.();
  if (GIVES_BACK.has(to)) await t.adjustAvailable(moved.accountId, moved.amountKopecks, change.at);
  const now = (await t.payout(id))!;
  await t.addPayoutEvent({ payoutId: id, status: to, event: payoutEvent(now, to, change.at) });
  return now;
}
