import type { Failure } from "@payaccept/contracts";
import { retryDelayMs, type Logger, type RetryPolicy } from "@payaccept/platform";
import type { FiscalDocument, RegisterState } from "./register/port.ts";
import type { ReceiptsStore } from "./store/receipts-store.ts";
import type { NewReceiptRow, ReceiptRow } from "./store/schema.ts";

/**
 * What a register's answer makes of a receipt: the one place of the receipt's states after
 * PENDING, used by the sender's attempts and by the register's callbacks alike. Every write is
 * `updateIfCurrent` on the document the answer is about, so two answers racing on one receipt (a
 * poll and a callback, on one replica or two) never undo each other: the first wins, the other
 * finds the receipt moved on and changes nothing.
 */
export type OutcomeDeps = { store: ReceiptsStore; policy: RetryPolicy; log: Logger; now: () => number };

/** Where the answer came from, for the log line: the sender's own call, or the register's callback. */
export type Via = "attempt" | "callback";

/** The register's idempotency key: a new document only after the register refused the previous one. */
export const externalIdOf = (row: Pick<ReceiptRow, "id" | "generation">) => (row.generation === 0 ? row.id : `${row.id}.${row.generation}`);

/** The receipt and document an external id names: `<receipt id>` or `<receipt id>.<generation>`. */
export function parseExternalId(externalId: string): { id: string; generation: number } | undefined {
  const m = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\.([1-9]\d{0,8}))?$/.exec(externalId);
  return m ? { id: m[1]!, generation: m[2] ? Number(m[2]) : 0 } : undefined;
}

export function toDocument(row: ReceiptRow): FiscalDocument {
  return {
    externalId: externalIdOf(row),
    kind: row.kind,
    test: row.isTest,
    shopId: row.shopId,
    customer: row.customer,
    taxation: row.taxation,
    items: row.items,
    totalKopecks: row.amountKopecks,
  };
}

/** Applies the register's answer about the receipt's current document; the row after it, or undefined when it had moved on. */
export async function applyState(d: OutcomeDeps, row: ReceiptRow, state: RegisterState, via: Via): Promise<ReceiptRow | undefined> {
  const fields = { receiptId: row.id, paymentId: row.paymentId, kind: row.kind, via };
  if (state.status === "done") {
    const { fiscal } = state;
    const done = await d.store.updateIfCurrent(
      row.id,
      row.generation,
      {
        status: "REGISTERED",
        registerDocumentId: state.documentId,
        fiscalDocumentNumber: fiscal.documentNumber,
        fiscalSign: fiscal.fiscalSign,
        fnNumber: fiscal.driveNumber,
        registeredAt: Date.parse(fiscal.registeredAt),
        nextAttemptAt: null,
        lastErrorCode: null,
        lastErrorParams: null,
      },
      d.now(),
    );
    if (done) d.log.info({ ...fields, fiscalDocumentNumber: fiscal.documentNumber }, "receipt registered");
    return done;
  }
  if (state.status === "wait") {
    // A callback saying "not yet" says nothing the receipt's own schedule does not cover.
    if (via === "callback") return undefined;
    return retry(d, row, { reason: "RECEIPT_NOT_FISCALISED_YET", params: {} }, { status: "SENT", registerDocumentId: state.documentId }, via, state.checkAfterMs);
  }
  // Refused: that document will never be fiscalised, so whatever comes next is a new one.
  const next = { generation: row.generation + 1, registerDocumentId: null };
  if (!state.needsPerson) return retry(d, row, state.failure, { status: "PENDING", ...next }, via);
  const failed = await d.store.updateIfCurrent(
    row.id,
    row.generation,
    { ...next, status: "FAILED", attempts: row.attempts + 1, nextAttemptAt: null, lastErrorCode: state.failure.reason, lastErrorParams: state.failure.params },
    d.now(),
  );
  if (failed) d.log.error({ ...fields, error: state.failure.reason, errorParams: state.failure.params }, "receipt refused by the register; a person must act, then resend it");
  return failed;
}

/** No usable answer (network, timeout, a reply off the protocol): the same document is tried again. */
export const applyCallFailure = (d: OutcomeDeps, row: ReceiptRow, failure: Failure) => retry(d, row, failure, {}, "attempt");

async function retry(d: OutcomeDeps, row: ReceiptRow, error: Failure, patch: Partial<NewReceiptRow>, via: Via, minDelayMs = 0): Promise<ReceiptRow | undefined> {
  const attempts = row.attempts + 1;
  const now = d.now();
  const delay = retryDelayMs(d.policy, attempts);
  const next = delay === null ? null : now + Math.max(delay, minDelayMs);
  const failed = next === null ? { status: "FAILED" as const } : {};
  const after = await d.store.updateIfCurrent(row.id, row.generation, { ...patch, attempts, lastErrorCode: error.reason, lastErrorParams: error.params, nextAttemptAt: next, ...failed }, now);
  if (!after) return undefined;
  const fields = { receiptId: row.id, paymentId: row.paymentId, kind: row.kind, via, attempts, error: error.reason, errorParams: error.params };
  if (next === null) d.log.error(fields, "receipt not registered after its last attempt; an operator can resend it");
  // A document with the register and not fiscalised yet is the normal way of things, not a warning.
  else if (error.reason === "RECEIPT_NOT_FISCALISED_YET") d.log.info({ ...fields, askInMs: next - now }, "receipt with the register, not fiscalised yet");
  else d.log.warn({ ...fields, retryInMs: next - now }, "receipt not registered yet; will retry");
  return after;
}
