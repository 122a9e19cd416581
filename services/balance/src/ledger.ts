import type { PaymentEvent } from "@payaccept/contracts";
import { moscowDay } from "@payaccept/domain";
import type { LedgerOps, LedgerStore } from "./store/ledger-store.ts";

/** What an event did to the ledger (for logs and metrics). */
export type EventEffect = "receipt" | "duplicate" | "sandbox" | "no-money";

/**
 * A live payment's SUCCESS as the ledger credits it: from its PaymentEvent, or from the
 * PaymentCredit of a refund hold that reached the balance first (refunds.ts).
 */
export type PaymentSuccess = Pick<PaymentEvent, "paymentId" | "accountId" | "shopId" | "amountKopecks" | "commissionKopecks" | "paidAt" | "occurredAt">;

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
  return store.tx(event.accountId, (t) => creditReceipt(t, event, now));
}

/**
 * Credits a live SUCCESS inside the caller's transaction, once per payment: a second credit of it
 * (the event after a refund hold, a redelivery) fails the applied_events key and moves nothing.
 */
export async function creditReceipt(t: LedgerOps, success: PaymentSuccess, now: number): Promise<"receipt" | "duplicate"> {
  const netKopecks = success.amountKopecks - success.commissionKopecks;
  const paidAt = success.paidAt === null ? null : Date.parse(success.paidAt);
  // A SUCCESS always carries paidAt; occurredAt (the moment it became SUCCESS) is the same instant if it ever does not.
  const day = moscowDay(paidAt ?? Date.parse(success.occurredAt));
  const first = await t.recordEvent({
    paymentId: success.paymentId,
    status: "SUCCESS",
    accountId: success.accountId,
    shopId: success.shopId,
    amountKopecks: success.amountKopecks,
    commissionKopecks: success.commissionKopecks,
    netKopecks,
    paidAt,
    moscowDay: day,
    occurredAt: Date.parse(success.occurredAt),
    appliedAt: now,
  });
  if (!first) return "duplicate";
  await t.addFrozen(success.accountId, day, netKopecks);
  return "receipt";
}
