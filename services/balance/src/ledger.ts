import type { PaymentEvent } from "@payaccept/contracts";
import { moscowDay } from "./moscow-time.ts";
import type { LedgerStore } from "./store/ledger-store.ts";

/** What an event did to the ledger (for logs and metrics). */
export type EventEffect = "receipt" | "duplicate" | "sandbox" | "no-money";

/**
 * Applies one payment event in one transaction. Idempotent by (paymentId, status): the
 * applied_events primary key rejects a second copy, whatever its Nats-Msg-Id was.
 * A receipt (amount − commission) goes on hold in the bucket of the Moscow day of its paidAt,
 * also when it arrives late (SUCCESS after EXPIRED or FAILED). FAILED, EXPIRED and CANCELED move no
 * money, and neither does REFUNDED: each refund moves its own share on its RefundEvent (refunds.ts).
 */
export async function applyPaymentEvent(store: LedgerStore, event: PaymentEvent, now: number): Promise<EventEffect> {
  if (event.isTest) return "sandbox";
  if (event.status !== "SUCCESS") return "no-money";
  const netKopecks = event.amountKopecks - event.commissionKopecks;
  const paidAt = event.paidAt === null ? null : Date.parse(event.paidAt);
  // A SUCCESS always carries paidAt; occurredAt (the moment it became SUCCESS) is the same instant if it ever does not.
  const day = moscowDay(paidAt ?? Date.parse(event.occurredAt));
  return store.tx(event.accountId, async (t) => {
    const first = await t.recordEvent({
      paymentId: event.paymentId,
      status: event.status,
      accountId: event.accountId,
      shopId: event.shopId,
      amountKopecks: event.amountKopecks,
      commissionKopecks: event.commissionKopecks,
      netKopecks,
      paidAt,
      moscowDay: day,
      occurredAt: Date.parse(event.occurredAt),
      appliedAt: now,
    });
    if (!first) return "duplicate";
    await t.addFrozen(event.accountId, day, netKopecks);
    return "receipt";
  });
}
