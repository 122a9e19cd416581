import {
  englishMessage,
  paymentEventId,
  refundEventId,
  type Refund,
  type RefundEvent,
  type CheckoutView,
  type Payment,
  type PaymentCredit,
  type PaymentEvent,
  type PaymentEventStatus,
  type PaymentExtras,
  type PaymentStatus,
  type SavedPaymentMethod,
  type ShopRecord,
  type WebhookExtras,
} from "@payaccept/contracts";
import type { PaymentRow, RefundRow, SavedMethodRow } from "../store/payments-store.ts";
import { maskedReceiptAddress } from "./receipt.ts";
import { awaitsAuthentication, methodIsFixed } from "./state-machine.ts";

const iso = (ms: number) => new Date(ms).toISOString();

export const payUrlOf = (paypageUrl: string, id: string) => `${paypageUrl}/pay/${id}`;

/**
 * The fields of saved methods, charges and holds a payment uses, in the order its webhook appends
 * them; undefined for a payment that uses none, which so keeps the spec's shape exactly.
 */
export function paymentExtras(row: PaymentRow): PaymentExtras | undefined {
  const extras: PaymentExtras = {};
  if (row.customerId !== null) extras.customerId = row.customerId;
  if (row.saveMethod) extras.savePaymentMethod = true;
  if (row.paymentMethod !== null) extras.paymentMethod = row.paymentMethod;
  if (row.merchantInitiated) extras.merchantInitiated = true;
  if (row.hold) {
    extras.capture = false;
    extras.heldKopecks = row.heldKopecks ?? row.amountKopecks;
    extras.captureDeadline = row.status === "AUTHORIZED" && row.expiresAt !== null ? iso(row.expiresAt) : null;
  }
  if (row.merchantInitiated && row.status === "FAILED" && row.failureCode !== null) {
    const params = row.failureParams ?? {};
    Object.assign(extras, { failureCode: row.failureCode, failureReason: String(englishMessage(row.failureCode, params)), failureParams: params });
  }
  return Object.keys(extras).length > 0 ? extras : undefined;
}

/** The spec's Payment object (§2.2), with the extras of the features it uses. */
export function toPayment(row: PaymentRow, paypageUrl: string): Payment {
  return {
    id: row.id,
    orderId: row.orderId,
    status: row.status,
    amountKopecks: row.amountKopecks,
    commissionKopecks: row.commissionKopecks,
    description: row.description,
    method: row.method,
    telegramId: row.telegramId,
    metadata: row.metadata,
    successUrl: row.successUrl,
    failUrl: row.failUrl,
    payUrl: payUrlOf(paypageUrl, row.id),
    isTest: row.isTest,
    paidAt: row.paidAt === null ? null : iso(row.paidAt),
    createdAt: iso(row.createdAt),
    refundedKopecks: row.refundedKopecks,
    ...paymentExtras(row),
  };
}

/** A saved method as the API shows it. */
export function toSavedMethod(row: SavedMethodRow): SavedPaymentMethod {
  return {
    id: row.id,
    method: row.method,
    card: row.card,
    sbp: row.sbp,
    status: row.status,
    customerId: row.customerId,
    paymentId: row.paymentId,
    isTest: row.isTest,
    createdAt: iso(row.createdAt),
    deactivatedAt: row.deactivatedAt === null ? null : iso(row.deactivatedAt),
    revokedBy: row.revokedBy,
  };
}

/** A FAILED refund's reason: as stored (code and parameters) and in English for the API. */
function failureOf(row: RefundRow): Pick<Refund, "failureReason" | "failureCode" | "failureParams"> {
  if (row.failureCode === null) return { failureReason: null, failureCode: null, failureParams: null };
  const params = row.failureParams ?? {};
  return { failureReason: String(englishMessage(row.failureCode, params)), failureCode: row.failureCode, failureParams: params };
}

export function toRefund(row: RefundRow): Refund {
  return {
    id: row.id,
    paymentId: row.paymentId,
    amountKopecks: row.amountKopecks,
    reason: row.reason,
    status: row.status,
    ...failureOf(row),
    createdAt: iso(row.createdAt),
    completedAt: row.completedAt === null ? null : iso(row.completedAt),
  };
}

/** The stream event of a refund that has ended; `payment` is the payment with the refund counted. */
export function toRefundEvent(refund: RefundRow, payment: PaymentRow, occurredAt: number, requestId: string | undefined): RefundEvent {
  return {
    eventId: refundEventId(refund.id),
    refundId: refund.id,
    paymentId: payment.id,
    shopId: payment.shopId,
    accountId: payment.accountId,
    orderId: payment.orderId,
    status: refund.status === "SUCCEEDED" ? "SUCCEEDED" : "FAILED",
    amountKopecks: refund.amountKopecks,
    balanceKopecks: refund.balanceKopecks,
    refundedTotalKopecks: payment.refundedKopecks,
    paymentAmountKopecks: payment.amountKopecks,
    isTest: payment.isTest,
    reason: refund.reason,
    failureReason: failureOf(refund).failureReason,
    occurredAt: iso(occurredAt),
    ...(requestId === undefined ? {} : { requestId }),
  };
}

/**
 * Methods the buyer may pick (or, once PENDING, switch between): the shop's enabled ones, narrowed
 * to the payment's method when it is fixed.
 */
function selectableMethods(row: PaymentRow, shop: ShopRecord): ShopRecord["methods"] {
  return methodIsFixed(row) ? shop.methods.filter((m) => m === row.method) : shop.methods;
}

/** What the payment page shows. */
/** `hostedCard`: the session's connector shows its own card page (Connector.cardPage), where the buyer goes. */
export function toCheckoutView(row: PaymentRow, shop: ShopRecord, paypageUrl: string, hostedCard = false): CheckoutView {
  const session = row.providerSessionId;
  return {
    payment: toPayment(row, paypageUrl),
    shopName: shop.name,
    methods: selectableMethods(row, shop),
    sandbox: row.isTest,
    accepting: shop.active,
    successUrl: row.successUrl ?? shop.successUrl,
    failUrl: row.failUrl ?? shop.failUrl,
    expiresAt: row.status === "PENDING" && row.expiresAt !== null ? iso(row.expiresAt) : null,
    sbp: session && row.method === "SBP" && row.sbpQrPayload && row.sbpDeepLink ? { qrPayload: row.sbpQrPayload, deepLink: row.sbpDeepLink } : null,
    card: session && row.method === "CARD" && row.cardFormAction ? { formAction: row.cardFormAction, sessionId: session, hosted: hostedCard } : null,
    receiptTo: row.receipt ? maskedReceiptAddress(row.receipt.customer) : null,
    saveMethod: row.saveMethod ? { consent: shop.savedMethodConsent ?? "BUYER_CHOICE" } : null,
    authentication: awaitsAuthentication(row) && row.authentication ? { url: row.authentication.url, expiresAt: iso(row.authentication.expiresAt) } : null,
  };
}

/**
 * The stream event of a payment: a transition into a notified status (`status` is the row's), or a
 * saved method's end, announced under the payment that saved it (`status` the method's news,
 * `extras` carrying the method as it now is).
 */
export function toPaymentEvent(
  row: PaymentRow,
  status: PaymentEventStatus,
  previousStatus: PaymentStatus,
  occurredAt: number,
  requestId: string | undefined,
  extras: WebhookExtras | undefined = paymentExtras(row),
): PaymentEvent {
  return {
    eventId: paymentEventId(row.id, status),
    paymentId: row.id,
    shopId: row.shopId,
    accountId: row.accountId,
    orderId: row.orderId,
    status,
    previousStatus,
    amountKopecks: row.amountKopecks,
    commissionKopecks: row.commissionKopecks,
    method: row.method,
    telegramId: row.telegramId,
    metadata: row.metadata,
    isTest: row.isTest,
    paidAt: row.paidAt === null ? null : iso(row.paidAt),
    createdAt: iso(row.createdAt),
    occurredAt: iso(occurredAt),
    ...(requestId === undefined ? {} : { requestId }),
    ...(row.receipt ? { receipt: row.receipt } : {}),
    ...(extras ? { extras } : {}),
  };
}

/** The event of a saved method's end (PAYMENT_METHOD_REVOKED or _EXPIRED), under the payment that saved it. */
export const toMethodEvent = (payment: PaymentRow, method: SavedMethodRow, status: PaymentEventStatus, occurredAt: number): PaymentEvent =>
  toPaymentEvent(payment, status, payment.status, occurredAt, undefined, { ...paymentExtras(payment), paymentMethod: toSavedMethod(method) });

/**
 * What the payment's SUCCESS event credits to the balance, sent with a refund's hold:
 * `paidAt` as the event carries it, `successAt` the event's occurredAt (when it became SUCCESS).
 */
export function toPaymentCredit(row: PaymentRow, paidAt: number, successAt: number): PaymentCredit {
  return { shopId: row.shopId, amountKopecks: row.amountKopecks, commissionKopecks: row.commissionKopecks, paidAt: iso(paidAt), occurredAt: iso(successAt) };
}
