import { DomainError, type RefundEvent, type RpcRequest, type rpcs } from "@payaccept/contracts";
import { releaseDueReceipts } from "./balance.ts";
import { creditReceipt } from "./ledger.ts";
import type { LedgerOps, LedgerStore, RefundHoldRow } from "./store/ledger-store.ts";

export type RefundHoldRequest = RpcRequest<typeof rpcs.balance.reserveRefund>;
/** What a refund takes, and from which payment's receipt. */
type RefundShare = Omit<RefundHoldRequest, "credit">;

/**
 * Where a refund's amount comes from: first the frozen bucket of the payment's own Moscow day while
 * that day is still on hold (the receipt being refunded has not reached available yet), then
 * available. Call inside a transaction, after releaseDueReceipts (whose cut-off it takes).
 */
async function sourcesOf(t: LedgerOps, req: RefundShare, cutoff: string): Promise<Pick<RefundHoldRow, "frozenDay" | "frozenKopecks" | "availableKopecks">> {
  const day = await t.receiptDay(req.paymentId);
  const frozen = day !== undefined && day > cutoff ? Math.min(req.amountKopecks, await t.frozenOfDay(req.accountId, day)) : 0;
  return { frozenDay: frozen > 0 ? day! : null, frozenKopecks: frozen, availableKopecks: req.amountKopecks - frozen };
}

/**
 * Holds a refund's amount before the provider is asked, so two refunds (or a refund and a payout)
 * can never spend the same money. Unique per refund id: a repeat holds nothing more, and after the
 * refund ended FAILED (its hold RELEASED, or a tombstone written because the request arrived late)
 * it holds nothing at all and answers { reserved: false }.
 * The payment's SUCCESS is credited first when its event has not been applied yet (`creditedReceipt`):
 * a refund requested right after the payment must not be refused because the stream is behind.
 * `waitMs`: how long the caller still waits; nothing is held after that (CallerGone).
 */
export function reserveRefund(
  store: LedgerStore,
  { credit, ...req }: RefundHoldRequest,
  now: number,
  holdHour: number,
  waitMs?: number,
): Promise<{ reserved: boolean; creditedReceipt: boolean }> {
  return store.tx(req.accountId, async (t) => {
    const creditedReceipt = (await creditReceipt(t, { ...credit, paymentId: req.paymentId, accountId: req.accountId }, now)) === "receipt";
    const earlier = await t.refundHold(req.refundId);
    if (earlier) return { reserved: earlier.state !== "RELEASED", creditedReceipt };
    const sources = await sourcesOf(t, req, await releaseDueReceipts(t, req.accountId, now, holdHour));
    if (sources.availableKopecks > 0 && !(await t.debitIfAvailable(req.accountId, sources.availableKopecks, now))) {
      throw new DomainError("REFUND_EXCEEDS_AVAILABLE", {
        neededKopecks: req.amountKopecks,
        availableKopecks: await t.available(req.accountId),
        frozenKopecks: sources.frozenKopecks,
      });
    }
    if (sources.frozenDay) await t.takeFrozen(req.accountId, sources.frozenDay, sources.frozenKopecks);
    await t.putRefundHold({ ...req, ...sources, state: "HELD", createdAt: now, settledAt: null });
    return { reserved: true, creditedReceipt };
  }, { waitMs });
}

/** Puts a hold's money back where it came from; a frozen day released meanwhile is available now. */
async function giveBack(t: LedgerOps, hold: RefundHoldRow, now: number, holdHour: number): Promise<void> {
  const cutoff = await releaseDueReceipts(t, hold.accountId, now, holdHour);
  if (hold.frozenDay && hold.frozenDay > cutoff) await t.addFrozen(hold.accountId, hold.frozenDay, hold.frozenKopecks);
  else await t.adjustAvailable(hold.accountId, hold.frozenKopecks, now);
  await t.adjustAvailable(hold.accountId, hold.availableKopecks, now);
}

/**
 * Applies a live refund's end (one transaction, idempotent by refund id through
 * applied_refund_events). SUCCEEDED: the hold stays taken; without a hold (or after one was given
 * back) the money is taken all the same, from the same sources, even into a negative available,
 * because the provider has already paid the buyer. FAILED: the hold goes back; without one a
 * tombstone keeps a late hold request from taking anything.
 */
export async function applyRefundEvent(
  store: LedgerStore,
  e: RefundEvent,
  now: number,
  holdHour: number,
): Promise<"refund-taken" | "refund-released" | "duplicate" | "sandbox"> {
  if (e.isTest) return "sandbox";
  return store.tx(e.accountId, async (t) => {
    const first = await t.recordRefundEvent({
      refundId: e.refundId,
      status: e.status,
      paymentId: e.paymentId,
      accountId: e.accountId,
      balanceKopecks: e.balanceKopecks,
      occurredAt: Date.parse(e.occurredAt),
      appliedAt: now,
    });
    if (!first) return "duplicate";
    const hold = await t.refundHold(e.refundId);
    const req = { refundId: e.refundId, accountId: e.accountId, paymentId: e.paymentId, amountKopecks: e.balanceKopecks };
    if (e.status === "FAILED") {
      if (hold?.state === "HELD") await giveBack(t, hold, now, holdHour);
      const nothing = { frozenDay: null, frozenKopecks: 0, availableKopecks: 0 };
      await t.putRefundHold({ ...req, ...(hold ?? nothing), state: "RELEASED", createdAt: hold?.createdAt ?? now, settledAt: now });
      return "refund-released";
    }
    if (hold?.state === "HELD") {
      await t.putRefundHold({ ...hold, state: "TAKEN", settledAt: now });
      return "refund-taken";
    }
    const sources = await sourcesOf(t, req, await releaseDueReceipts(t, e.accountId, now, holdHour));
    if (sources.frozenDay) await t.takeFrozen(e.accountId, sources.frozenDay, sources.frozenKopecks);
    await t.adjustAvailable(e.accountId, -sources.availableKopecks, now);
    await t.putRefundHold({ ...req, ...sources, state: "TAKEN", createdAt: hold?.createdAt ?? now, settledAt: now });
    return "refund-taken";
  });
}
