import type { PaymentEvent } from "@payaccept/contracts";
import { moscowDay } from "@payaccept/domain";
import type { AppliedEvent, FrozenAddition, LedgerOps, LedgerStore } from "./store/ledger-store.ts";

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
  return (await applyPaymentEvents(store, [event], now))[0]!;
}

/**
 * Applies payment events in stream order in one transaction (the consumer's batch, docs/balance.md
 * "Event consumer"): what each does is what applyPaymentEvent would do to it alone, one after the
 * other. The receipts are recorded in one statement (a copy already applied, or a second copy in
 * the same batch, is a "duplicate") and each (account, day) bucket gets the sum of its new
 * receipts; the transaction holds the row locks of every account involved.
 */
export async function applyPaymentEvents(store: LedgerStore, events: readonly PaymentEvent[], now: number): Promise<EventEffect[]> {
  const effects: (EventEffect | undefined)[] = events.map((e) => (e.isTest ? "sandbox" : e.status !== "SUCCESS" ? "no-money" : undefined));
  const receipts = events.flatMap((e, i) => (effects[i] === undefined ? [{ i, row: receiptRow(e, now) }] : []));
  if (receipts.length === 0) return effects as EventEffect[];
  await store.tx(
    receipts.map((r) => r.row.accountId),
    async (t) => {
      const first = await t.recordEvents(receipts.map((r) => r.row));
      const sums = new Map<string, FrozenAddition>();
      receipts.forEach(({ i, row }, k) => {
        effects[i] = first[k] ? "receipt" : "duplicate";
        if (!first[k]) return;
        const key = `${row.accountId}\u0000${row.moscowDay}`;
        const sum = sums.get(key);
        if (sum) sum.amountKopecks += row.netKopecks;
        else sums.set(key, { accountId: row.accountId, moscowDay: row.moscowDay, amountKopecks: row.netKopecks });
      });
      if (sums.size > 0) await t.addFrozenSums([...sums.values()]);
    },
  );
  return effects as EventEffect[];
}

/**
 * Credits a live SUCCESS inside the caller's transaction, once per payment: a second credit of it
 * (the event after a refund hold, a redelivery) fails the applied_events key and moves nothing.
 */
export async function creditReceipt(t: LedgerOps, success: PaymentSuccess, now: number): Promise<"receipt" | "duplicate"> {
  const row = receiptRow(success, now);
  const [first] = await t.recordEvents([row]);
  if (!first) return "duplicate";
  await t.addFrozen(row.accountId, row.moscowDay, row.netKopecks);
  return "receipt";
}

/** The applied_events row of a SUCCESS: its receipt (amount − commission) frozen on its Moscow day. */
function receiptRow(success: PaymentSuccess, now: number): Required<AppliedEvent> & { moscowDay: string } {
  const paidAt = success.paidAt === null ? null : Date.parse(success.paidAt);
  return {
    paymentId: success.paymentId,
    status: "SUCCESS",
    accountId: success.accountId,
    shopId: success.shopId,
    amountKopecks: success.amountKopecks,
    commissionKopecks: success.commissionKopecks,
    netKopecks: success.amountKopecks - success.commissionKopecks,
    paidAt,
    // A SUCCESS always carries paidAt; occurredAt (the moment it became SUCCESS) is the same instant if it ever does not.
    moscowDay: moscowDay(paidAt ?? Date.parse(success.occurredAt)),
    occurredAt: Date.parse(success.occurredAt),
    appliedAt: now,
  };
}
