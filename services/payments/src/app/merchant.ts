import {
  DomainError,
  ERROR_HTTP_STATUS,
  errorBody,
  IDEMPOTENCY_KEY_HEADER,
  IsoDateTime,
  type KeyedAnswer,
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
import { settledWithin, traceCarrier } from "@payaccept/platform";
import type { z } from "zod";
import { commissionFor, quoteCommission } from "../domain/commission.ts";
import { resolveReceipt } from "../domain/receipt.ts";
import { toPayment } from "../domain/views.ts";
import { OrderIdTaken, type IdempotencyKeyRow, type NewPayment, type PaymentRow, type SavedMethodRow } from "../store/payments-store.ts";
import { recordAction } from "./audit.ts";
import { chargeInFlight, chargeOnce, chargeTerms } from "./charges.ts";
import { ownedPayment, paymentNotFound, tracePayment, type CreateTerms, type PaymentsDeps } from "./deps.ts";
import { voidHold } from "./holds.ts";
import { ownedMethod } from "./saved-methods.ts";

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

/** What a create inserts once its shop and terms allow it (refusals are thrown), for how long it lives, and the saved method a charge charges. */
async function newPayment(d: PaymentsDeps, shop: ShopRecord, req: CreatePaymentRequest): Promise<{ input: NewPayment; ttlMs: number; charge: boolean; saved?: SavedMethodRow }> {
  const saved = req.paymentMethodId === undefined ? undefined : await ownedMethod(d, shop.shopId, req.paymentMethodId);
  const terms = saved ? chargeTerms(shop, req, saved) : buyerTerms(shop, req);
  const charge = terms.merchantInitiated === true;
  const input: NewPayment = {
    shopId: shop.shopId,
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
    receipt: resolveReceipt(req.receipt, shop.receipts),
    createCallId: d.callId ?? null,
    customerId: req.customerId ?? null,
    hold: req.capture === false,
    heldKopecks: req.capture === false ? req.amountKopecks : null,
    traceContext: traceCarrier() ?? null,
    ...terms,
  };
  // A live charge's row is leased to this request while it charges; anything else expires.
  return { input, ttlMs: charge && !shop.sandbox ? d.chargeLeaseMs : charge ? d.pendingTtlMs : d.createdTtlMs, charge, saved };
}

/** The shop, if it may create payments. */
async function activeShop(d: PaymentsDeps, shopId: string): Promise<ShopRecord> {
  const shop = await d.shops.shop(shopId);
  // The gateway already refused unknown keys and inactive shops; this holds for every other caller.
  if (!shop?.active) throw new DomainError("SHOP_NOT_ACTIVE");
  return shop;
}

/** A new payment's log line, and its id on the create's span. */
function noteCreated(d: PaymentsDeps, row: PaymentRow, charge: boolean): void {
  tracePayment(row);
  d.log.info({ paymentId: row.id, shopId: row.shopId, orderId: row.orderId, amountKopecks: row.amountKopecks, isTest: row.isTest, merchantInitiated: charge, hold: row.hold }, "payment created");
}

/**
 * A payment for the buyer to pay on payUrl, or (with `paymentMethodId`) a charge of a saved
 * method without the buyer, charged once here and answered as that attempt left it.
 */
export async function createPayment(d: PaymentsDeps, shopId: string, req: CreatePaymentRequest): Promise<Payment> {
  const shop = await activeShop(d, shopId);
  let created;
  try {
    created = await newPayment(d, shop, req);
  } catch (e) {
    // A copy of a charge's call (hedged by the caller while the first one waits for the acquirer)
    // answers the payment the first one made, as it is now: the first one may have ended the method
    // it charged, so the method's refusal is not the copy's answer.
    const made = req.paymentMethodId !== undefined && e instanceof DomainError ? await madeByThisCall(d, shopId, req.orderId) : undefined;
    if (made) return toPayment(made, d.paypageUrl);
    throw e;
  }
  const { input, ttlMs, charge, saved } = created;
  let row;
  try {
    row = await d.repo.insert(input, d.now(), ttlMs);
  } catch (e) {
    if (!(e instanceof OrderIdTaken)) throw e;
    // A copy of this very call (hedged by the caller) may have made it already: its answer is that payment.
    const earlier = await madeByThisCall(d, shopId, req.orderId);
    if (earlier) return toPayment(earlier, d.paypageUrl);
    throw new DomainError("ORDER_ID_TAKEN");
  }
  noteCreated(d, row, charge);
  if (!charge) return toPayment(row, d.paypageUrl);
  // Money taken without the buyer, in the caller's name, before the acquirer is asked (as a refund is).
  recordAction(d, "charge.created", { type: "payment", id: row.id }, row, row.createdAt, {
    orderId: row.orderId,
    amountKopecks: row.amountKopecks,
    paymentMethodId: row.savedMethodId,
    capture: !row.hold,
  });
  if (!row.isTest) row = await chargeOnce(d, row, saved!);
  return toPayment(row, d.paypageUrl);
}

type Keyed = { key: string; fingerprint: string };

/**
 * What the key's row answers the request with `fingerprint`: its stored answer, a replay except
 * to a copy of the very call that wrote it; a key first used with another request (or kept by
 * the gateway for another route) is IDEMPOTENCY_KEY_REUSED.
 */
function answerOf(d: PaymentsDeps, row: IdempotencyKeyRow, keyed: Keyed): KeyedAnswer {
  if (row.fingerprint !== keyed.fingerprint || row.status === null || row.body === null) {
    throw new DomainError("IDEMPOTENCY_KEY_REUSED", { header: IDEMPOTENCY_KEY_HEADER, key: keyed.key });
  }
  return { status: row.status, body: row.body, replayed: row.callId === null || row.callId !== d.callId };
}

/**
 * A buyer's payment under an Idempotency-Key (docs/gateway.md, "Idempotency keys"): the key's
 * row commits with the payment and holds the exact body answered, so a retry, a twin or a copy
 * of the call replays it and makes nothing. A refusal (4xx) is the key's answer too, recorded on
 * its own and thrown; a 5xx records nothing, so the next request with the key runs again.
 * Charges (paymentMethodId) keep their keys in the gateway's bucket: they answer after the
 * acquirer, outside the insert's transaction.
 */
export async function createKeyed(d: PaymentsDeps, shopId: string, req: CreatePaymentRequest, keyed: Keyed, status: number): Promise<KeyedAnswer> {
  if (req.paymentMethodId !== undefined) throw new Error("a charge's Idempotency-Key is kept by the gateway");
  try {
    const { input, ttlMs, charge } = await newPayment(d, await activeShop(d, shopId), req);
    const answer = (row: PaymentRow) => JSON.stringify(toPayment(row, d.paypageUrl));
    const made = await d.repo.insertKeyed(input, d.now(), ttlMs, { ...keyed, callId: d.callId ?? null, status, answer }).catch((e) => {
      throw e instanceof OrderIdTaken ? new DomainError("ORDER_ID_TAKEN") : e;
    });
    if (made.kind === "existing") return answerOf(d, made.key, keyed);
    noteCreated(d, made.row, charge);
    return { status, body: made.body, replayed: false };
  } catch (e) {
    if (!(e instanceof DomainError) || e.reason === "IDEMPOTENCY_KEY_REUSED" || ERROR_HTTP_STATUS[e.code] >= 500) throw e;
    const refusal = errorBody(e);
    const held = await d.keys.put({ shopId, ...keyed, status: refusal.statusCode, body: JSON.stringify(refusal), callId: d.callId ?? null, createdAt: d.now() });
    if (held) return answerOf(d, held, keyed);
    throw e;
  }
}

/** Another route's key (kept in the gateway's bucket) marked here: free or already this request's, else IDEMPOTENCY_KEY_REUSED. */
export async function noteKey(d: PaymentsDeps, shopId: string, keyed: Keyed): Promise<{ noted: true }> {
  const held = await d.keys.put({ shopId, ...keyed, status: null, body: null, callId: null, createdAt: d.now() });
  if (held && held.fingerprint !== keyed.fingerprint) throw new DomainError("IDEMPOTENCY_KEY_REUSED", { header: IDEMPOTENCY_KEY_HEADER, key: keyed.key });
  return { noted: true };
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
