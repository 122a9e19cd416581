import { failureText, type FailedReceipt, type Receipt, type ReceiptStatus, type ReceiptSummary } from "@payaccept/contracts";
import type { ReceiptRow } from "./store/schema.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** SENT is our bookkeeping (the register has it, unconfirmed): to a merchant it is still PENDING. */
const visibleStatus = (row: ReceiptRow): ReceiptStatus => (row.status === "SENT" ? "PENDING" : row.status);

export function toReceipt(row: ReceiptRow): Receipt {
  return {
    id: row.id,
    paymentId: row.paymentId,
    refundId: row.refundId,
    kind: row.kind,
    status: visibleStatus(row),
    amountKopecks: row.amountKopecks,
    isTest: row.isTest,
    customer: row.customer,
    taxation: row.taxation,
    items: row.items,
    fiscal:
      row.status === "REGISTERED"
        ? { documentNumber: row.fiscalDocumentNumber!, fiscalSign: row.fiscalSign!, driveNumber: row.fnNumber!, registeredAt: iso(row.registeredAt!) }
        : null,
    attempts: row.attempts,
    lastError: row.lastErrorCode && failureText({ reason: row.lastErrorCode, params: row.lastErrorParams ?? {} }),
    lastErrorCode: row.lastErrorCode,
    lastErrorParams: row.lastErrorParams,
    createdAt: iso(row.createdAt),
  };
}

export const toReceiptSummary = (row: ReceiptRow): ReceiptSummary => ({
  id: row.id,
  paymentId: row.paymentId,
  kind: row.kind,
  status: visibleStatus(row),
  amountKopecks: row.amountKopecks,
  fiscalDocumentNumber: row.status === "REGISTERED" ? row.fiscalDocumentNumber : null,
});

export const toFailedReceipt = (row: ReceiptRow): FailedReceipt => {
  const r = toReceipt(row);
  return {
    id: r.id,
    shopId: row.shopId,
    paymentId: r.paymentId,
    refundId: r.refundId,
    kind: r.kind,
    amountKopecks: r.amountKopecks,
    taxation: r.taxation,
    attempts: r.attempts,
    lastError: r.lastError,
    lastErrorCode: r.lastErrorCode,
    lastErrorParams: r.lastErrorParams,
    createdAt: r.createdAt,
    failedAt: iso(row.updatedAt),
  };
};
