import type { PaymentEvent } from "@payaccept/contracts";
import { moscowDay } from "@payaccept/domain";
import type { AppliedEvent, FrozenAddition, LedgerStore } from "./store/ledger-store.ts";

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
        else sums.set(key, { accountId: row.accountId, moscowDay: row.moscowDay!, amountKopecks: row.netKopecks });
      });
      if (sums.size > 0) await t.addFrozenSums([...sums.values()]);
    },
  );
  return effects as EventEffect[];
}

function receiptRow(event: PaymentEvent, now: number): Required<AppliedEvent> {
  const paidAt = event.paidAt === null ? null : Date.parse(event.paidAt);
  return {
    paymentId: event.paymentId,
    status: event.status,
    accountId: event.accountId,
    shopId: event.shopId,
    amountKopecks: event.amountKopecks,
    commissionKopecks: event.commissionKopecks,
    netKopecks: event.amountKopecks - event.commissionKopecks,
    paidAt,
    // A SUCCESS always carries paidAt; occurredAt (the moment it became SUCCESS) is the same instant if it ever does not.
    moscowDay: moscowDay(paidAt ?? Date.parse(event.occurredAt)),
    occurredAt: Date.parse(event.occurredAt),
    appliedAt: now,
  };
}
