import {
  englishMessage,
  paymentEventId,
  refundEventId,
  type Refund,
  type RefundEvent,
  type CheckoutView,
  type FinalStatus,
  type Payment,
  type PaymentCredit,
  type PaymentEvent,
  type PaymentStatus,
  type ShopRecord,
} from "@payaccept/contracts";
import type { PaymentRow, RefundRow } from "../store/schema.ts";
import { maskedReceiptAddress } from "./receipt.ts";
import { methodIsFixed } from "./state-machine.ts";

const iso = (ms: number) => new Date(ms).toISOString();

export const payUrlOf = (paypageUrl: string, id: string) => `${paypageUrl}/pay/${id}`;

/** The spec's Payment object (§2.2). */
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
export function toCheckoutView(row: PaymentRow, shop: ShopRecord, paypageUrl: string): CheckoutView {
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
    card: session && row.method === "CARD" && row.cardFormAction ? { formAction: row.cardFormAction, sessionId: session } : null,
    receiptTo: row.receipt ? maskedReceiptAddress(row.receipt.customer) : null,
    saveMethod: null,
    authentication: null,
  };
}

/** The stream event of a transition into a final status. */
export function toPaymentEvent(
  row: PaymentRow & { status: FinalStatus },
  previousStatus: PaymentStatus,
  occurredAt: number,
  requestId: string | undefined,
): PaymentEvent {
  return {
    eventId: paymentEventId(row.id, row.status),
    paymentId: row.id,
    shopId: row.shopId,
    accountId: row.accountId,
    orderId: row.orderId,
    status: row.status,
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
  };
}

/**
 * What the payment's SUCCESS event credits to the balance, sent with a refund's hold:
 * `paidAt` as the event carries it, `successAt` the event's occurredAt (when it became SUCCESS).
 */
export function toPaymentCredit(row: PaymentRow, paidAt: number, successAt: number): PaymentCredit {
  return { shopId: row.shopId, amountKopecks: row.amountKopecks, commissionKopecks: row.commissionKopecks, paidAt: iso(paidAt), occurredAt: iso(successAt) };
}
