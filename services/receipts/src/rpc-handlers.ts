import { DomainError, rpcs } from "@payaccept/contracts";
import { serve, type Logger, type NatsConnection, type Subscription } from "@payaccept/platform";
import type { ReceiptsStore } from "./store/receipts-store.ts";
import { toFailedReceipt, toReceipt, toReceiptSummary } from "./views.ts";

export type ReceiptsRpcDeps = { store: ReceiptsStore; log: Logger; now: () => number; onResend: () => void };

/** A FAILED receipt back to the sender with fresh attempts; the same external id, so nothing can be registered twice. */
export async function resendReceipt(d: ReceiptsRpcDeps, id: string, shopId: string | undefined) {
  const row = await d.store.byId(id);
  if (!row || (shopId !== undefined && row.shopId !== shopId)) throw new DomainError("RECEIPT_NOT_FOUND");
  if (row.status !== "FAILED") throw new DomainError("RECEIPT_NOT_RESENDABLE", { status: row.status === "SENT" ? "PENDING" : row.status });
  const now = d.now();
  const updated = await d.store.update(id, { status: "PENDING", attempts: 0, nextAttemptAt: now }, now);
  d.log.info({ receiptId: id, paymentId: row.paymentId, kind: row.kind }, "receipt resent by an operator");
  d.onResend();
  return toReceipt(updated);
}

/** Every receipts RPC, in the queue group "receipts" so replicas share the load. */
export function serveReceiptsRpcs(nc: NatsConnection, d: ReceiptsRpcDeps): Subscription[] {
  const opts = { queue: "receipts", log: d.log };
  return [
    serve(nc, rpcs.receipts.list, async (req) => ({ items: (await d.store.ofPayments(req.shopId, req.paymentIds)).map(toReceipt) }), opts),
    serve(nc, rpcs.receipts.summaries, async (req) => ({ items: (await d.store.ofPayments(req.shopId, req.paymentIds)).map(toReceiptSummary) }), opts),
    serve(nc, rpcs.receipts.resend, (req) => resendReceipt(d, req.id, req.shopId), opts),
    serve(nc, rpcs.receipts.failed, async (req) => ({ items: (await d.store.failed(req.limit, req.reason)).map(toFailedReceipt) }), opts),
  ];
}
