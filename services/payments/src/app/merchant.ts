import {
  DomainError,
  IsoDateTime,
  issuesOf,
  validationFailed,
  type ValidationIssue,
  type BrowsePaymentsRequest,
  type CreatePaymentRequest,
  type ListPaymentsQuery,
  type Payment,
  type PaymentListPage,
  type PaymentStatus,
  type ShopRecord,
} from "@payaccept/contracts";
import { settledWithin } from "@payaccept/platform";
import type { z } from "zod";
import { commissionFor, quoteCommission } from "../domain/commission.ts";
import { resolveReceipt } from "../domain/receipt.ts";
import { toPayment } from "../domain/views.ts";
import { OrderIdTaken } from "../store/payments-store.ts";
import { recordAction } from "./audit.ts";
import { chargeInFlight, chargeOnce, chargeTerms } from "./charges.ts";
import { ownedPayment, paymentNotFound, type CreateTerms, type PaymentsDeps } from "./deps.ts";
import { voidHold } from "./holds.ts";

/**
 * What a buyer's payment becomes besides its request: its method (a hold can only be a card's)
 * and the commission shown until the buyer picks one (the highest of the shop's methods).
 */
function buyerTerms(shop: ShopRecord, req: CreatePaymentRequest): CreateTerms {
  if (req.capture === false && req.method === "SBP") throw new DomainError("HOLD_NOT_FOR_SBP");
  const method = req.method ?? (req.capture === false ? "CARD" : undefined);
  if (method && !shop.methods.includes(method)) throw new DomainError("METHOD_NOT_AVAILABLE", { method });
  if (shop.methods.length === 0) throw new DomainError("NO_METHOD_AVAILABLE");
  return {
    method: method ?? null,
    commissionKopecks: method ? commissionFor(req.amountKopecks, shop.tariff[method]) : quoteCommission(req.amountKopecks, shop.tariff, shop.methods),
    saveMethod: req.savePaymentMethod === true,
  };
}

/**
 * The payment of this orderId, if this very call (another copy of it) made it; a charge that the
 * first copy is still making at the acquirer is awaited while the caller waits (platform's
 * copies.ts), so the copy answers the charge's outcome, not the PENDING of a moment before it.
 */
async function madeByThisCall(d: PaymentsDeps, shopId: string, orderId: string) {
  if (d.callId === undefined) return undefined;
  const row = await d.repo.byOrderId(shopId, orderId);
  if (row?.createCallId !== d.callId) return undefined;
  return settledWithin(row, () => d.repo.byId(row.id), (r) => !chargeInFlight(r), d.repeatWaitMs?.() ?? 0);
}

/**
 * A payment for the buyer to pay on payUrl, or (with `paymentMethodId`) a charge of a saved
 * method without the buyer, charged once here and answered as that attempt left it.
 */
export async function createPayment(d: PaymentsDeps, shopId: string, req: CreatePaymentRequest): Promise<Payment> {
  const shop = await d.shops.shop(shopId);
  // The gateway already refused unknown keys and inactive shops; this holds for every other caller.
  if (!shop?.active) throw new DomainError("SHOP_NOT_ACTIVE");
  // A copy of a charge's call (hedged by the caller while the first one waits for the acquirer)
  // answers the payment the first one made, as it is now: the first one may have ended the method
  // it charged, so checking the method again would refuse the copy of a charge that was made.
  const made = req.paymentMethodId === undefined ? undefined : await madeByThisCall(d, shopId, req.orderId);
  if (made) return toPayment(made, d.paypageUrl);
  const terms = req.paymentMethodId === undefined ? buyerTerms(shop, req) : await chargeTerms(d, shop, req);
  const receipt = resolveReceipt(req.receipt, shop.receipts);
  const charge = terms.merchantInitiated === true;
  let row;
  try {
    row = await d.repo.insert(
      {
        shopId,
        accountId: shop.accountId,
        orderId: req.orderId,
        amountKopecks: req.amountKopecks,
        description: req.description ?? null,
        email: req.email ?? null,
        telegramId: req.telegramId ?? null,
        metadata: req.metadata ?? null,
        successUrl: req.successUrl ?? null,
        failUrl: req.failUrl ?? null,
        isTest: shop.sandbox,
        receipt,
        createCallId: d.callId ?? null,
        customerId: req.customerId ?? null,
        hold: req.capture === false,
        heldKopecks: req.capture === false ? req.amountKopecks : null,
        ...terms,
      },
      d.now(),
      // A live charge's row is leased to this request while it charges; anything else expires.
      charge && !shop.sandbox ? d.chargeLeaseMs : charge ? d.pendingTtlMs : d.createdTtlMs,
    );
  } catch (e) {
    if (!(e instanceof OrderIdTaken)) throw e;
    // A copy of this very call (hedged by the caller) may have made it already: its answer is that payment.
    const earlier = await madeByThisCall(d, shopId, req.orderId);
    if (earlier) return toPayment(earlier, d.paypageUrl);
    throw new DomainError("ORDER_ID_TAKEN");
  }
  d.log.info({ paymentId: row.id, shopId, orderId: row.orderId, amountKopecks: row.amountKopecks, isTest: row.isTest, merchantInitiated: charge, hold: row.hold }, "payment created");
  if (!charge) return toPayment(row, d.paypageUrl);
  // Money taken without the buyer, in the caller's name, before the acquirer is asked (as a refund is).
  recordAction(d, "charge.created", { type: "payment", id: row.id }, row, row.createdAt, {
    orderId: row.orderId,
    amountKopecks: row.amountKopecks,
    paymentMethodId: row.savedMethodId,
    capture: !row.hold,
  });
  if (!row.isTest) row = await chargeOnce(d, row);
  return toPayment(row, d.paypageUrl);
}

export const getPayment = async (d: PaymentsDeps, shopId: string, id: string): Promise<Payment> => toPayment(await ownedPayment(d, shopId, id), d.paypageUrl);

export async function lookupPayment(d: PaymentsDeps, shopId: string, orderId: string): Promise<Payment> {
  const row = await d.repo.byOrderId(shopId, orderId);
  if (!row) throw paymentNotFound();
  return toPayment(row, d.paypageUrl);
}

export async function listPayments(d: PaymentsDeps, shopId: string, query: ListPaymentsQuery): Promise<PaymentListPage> {
  const { items, total } = await d.repo.list(shopId, query);
  return { items: items.map((r) => toPayment(r, d.paypageUrl)), total, page: query.page, pageSize: query.limit };
}

/** The dashboard's list (rpcs.payments.browse); a reversed period is simply empty. */
export async function browsePayments(d: PaymentsDeps, req: z.output<typeof BrowsePaymentsRequest>) {
  const { items, byStatus } = await d.repo.browse(req.shopId, { ...req, statuses: req.status });
  return { items: items.map((r) => toPayment(r, d.paypageUrl)), total: byStatus.reduce((n, s) => n + s.count, 0), byStatus };
}

/**
 * CREATED → CANCELED; AUTHORIZED → CANCELED is the void of a hold; a repeat returns the canceled
 * payment without a second event.
 */
export async function cancelPayment(d: PaymentsDeps, shopId: string, id: string): Promise<Payment> {
  const current = await ownedPayment(d, shopId, id);
  if (current.status === "AUTHORIZED") return voidHold(d, current);
  const { decision, row } = (await d.repo.transition(id, "cancel", d.now(), { requestId: d.requestId }))!;
  if (decision.kind === "refused") {
    throw row.status === "PENDING" ? new DomainError("CANCEL_WHILE_PAYING") : new DomainError("PAYMENT_NOT_CANCELABLE", { status: row.status });
  }
  return toPayment(row, d.paypageUrl);
}

export type ExportRequest = {
  shopId: string;
  from?: string;
  to?: string;
  status?: PaymentStatus[];
  after?: { createdAt: string; id: string };
  limit: number;
};

export async function exportPayments(d: PaymentsDeps, req: ExportRequest): Promise<{ items: Payment[] }> {
  const problems: ValidationIssue[] = [];
  const instant = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const checked = IsoDateTime.safeParse(v);
    if (!checked.success) problems.push(...issuesOf(checked.error, name));
    return Date.parse(v);
  };
  const fromMs = instant("from", req.from);
  const toMs = instant("to", req.to);
  const afterMs = instant("after.createdAt", req.after?.createdAt);
  if (problems.length) throw validationFailed(problems);
  const rows = await d.repo.exportPage(req.shopId, {
    fromMs,
    toMs,
    statuses: req.status,
    after: req.after && afterMs !== undefined ? { createdAt: afterMs, id: req.after.id } : undefined,
    limit: req.limit,
  });
  return { items: rows.map((r) => toPayment(r, d.paypageUrl)) };
}
