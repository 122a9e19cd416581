import type { AuditEvent, Payment, ReceiptSummary } from "@payaccept/contracts";

/**
 * A spreadsheet runs a cell that starts with = + - @ (or a tab or carriage return, which some
 * strip before looking) as a formula: such text cells get a leading apostrophe, shown as text.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: string | number | boolean | null): string {
  if (value === null) return "";
  if (typeof value !== "string") return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** RFC 4180: comma-separated, CRLF-terminated. */
export const csvLine = (cells: (string | number | boolean | null)[]) => `${cells.map(csvCell).join(",")}\r\n`;

/** Every field of the spec's Payment (§2.2), in its order; metadata as JSON text. */
export const PAYMENT_CSV_COLUMNS = [
  "id",
  "orderId",
  "status",
  "amountKopecks",
  "commissionKopecks",
  "description",
  "method",
  "telegramId",
  "metadata",
  "successUrl",
  "failUrl",
  "payUrl",
  "isTest",
  "paidAt",
  "createdAt",
  "refundedKopecks",
] as const satisfies readonly (keyof Payment)[];

/** A row of the export: the payment and its fiscal receipts (docs/receipts.md). */
export type ExportRow = { payment: Payment; receipts: ReceiptSummary[] };

/**
 * Saved methods, charges and holds, after `receipts` (so the columns a reader already counts stay
 * where they were): empty on a payment that does not use them.
 */
const EXTRA_CSV_COLUMNS = ["customerId", "paymentMethodId", "merchantInitiated", "heldKopecks", "captureDeadline", "failureCode"] as const;

/** The Payment's columns, then `receipts`: "SALE REGISTERED ФД 12; REFUND PENDING", empty when none; then the extras. */
export const EXPORT_CSV_COLUMNS = [...PAYMENT_CSV_COLUMNS, "receipts", ...EXTRA_CSV_COLUMNS] as const;

const receiptsCell = (receipts: ReceiptSummary[]) =>
  receipts.map((r) => [r.kind, r.status, ...(r.fiscalDocumentNumber === null ? [] : [`ФД ${r.fiscalDocumentNumber}`])].join(" ")).join("; ");

export const exportCsvLine = ({ payment: p, receipts }: ExportRow) =>
  csvLine([
    ...PAYMENT_CSV_COLUMNS.map((column) => (column === "metadata" ? (p.metadata === null ? null : JSON.stringify(p.metadata)) : p[column])),
    receiptsCell(receipts),
    p.customerId ?? null,
    p.paymentMethod?.id ?? null,
    p.merchantInitiated ?? null,
    p.heldKopecks ?? null,
    p.captureDeadline ?? null,
    p.failureCode ?? null,
  ]);

/** The audit log's export: one entry a line, newest first, before and after as JSON. */
export const AUDIT_CSV_COLUMNS = ["at", "action", "actorKind", "actor", "actorId", "actorRole", "ip", "userAgent", "shopId", "targetType", "targetId", "before", "after", "requestId", "id"] as const;

const json = (v: Record<string, unknown> | null) => (v === null ? null : JSON.stringify(v));

export const auditCsvLine = (e: AuditEvent) =>
  csvLine([
    e.at,
    e.action,
    e.actor.kind,
    e.actor.label,
    e.actor.id ?? null,
    e.actor.role ?? null,
    e.actor.ip ?? null,
    e.actor.userAgent ?? null,
    e.shopId,
    e.target?.type ?? null,
    e.target?.id ?? null,
    json(e.before),
    json(e.after),
    e.requestId ?? null,
    e.id,
  ]);
