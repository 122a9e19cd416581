import { DomainError, operations, rpcs, type Rpc, type RpcResponse } from "@payaccept/contracts";
import { actorOf, callIdOf, improveWithinMs, repeatKey, requestIdOf, RequestLog, serve, type Logger, type Msg, type NatsConnection, type Subscription } from "@payaccept/platform";
import type { z } from "zod";
import { checkout, startPayment } from "../app/checkout.ts";
import { anyPayment, ownedPayment, type PaymentsDeps } from "../app/deps.ts";
import { capturePayment } from "../app/holds.ts";
import { browsePayments, cancelPayment, createKeyed, createPayment, exportPayments, getPayment, listPayments, lookupPayment, noteKey } from "../app/merchant.ts";
import { listRefunds, requestRefund } from "../app/refund.ts";
import { completeSandbox, pageOutcome } from "../app/sandbox.ts";
import { getMethod, listMethods, revokeMethod } from "../app/saved-methods.ts";
import { reconcileNow } from "../app/reconcile.ts";

const QUEUE = "payments";

/**
 * Serves every payments RPC in the "payments" queue group, one log line per request (a read that
 * succeeded at debug: an API read's record is the gateway's access line, with the same request id,
 * and its line here cost a tenth of payments' CPU per read; a refused read stays at info). A request
 * that came with an X-Request-Id (every API request) is handled with deps of its own: its
 * RequestLog, so every line the use case writes carries the id, and the id for the events it causes.
 */
export function servePayments(nc: NatsConnection, d: PaymentsDeps, log: Logger): Subscription[] {
  const handle = <R extends Rpc<z.ZodType, z.ZodType>>(
    rpc: R,
    fn: (req: z.output<R["request"]>, d: PaymentsDeps, msg: Msg) => RpcResponse<R> | Promise<RpcResponse<R>>,
  ) =>
    serve(
      nc,
      rpc,
      async (req, msg) => {
        const started = performance.now();
        const requestId = requestIdOf(msg);
        const callId = callIdOf(msg);
        const actor = actorOf(msg);
        const repeatWaitMs = () => improveWithinMs(msg);
        const rd = requestId === undefined ? { ...d, callId, actor, repeatWaitMs } : { ...d, requestId, callId, actor, repeatWaitMs, log: new RequestLog(log, requestId) };
        const ids = { requestId, shopId: (req as { shopId?: string }).shopId, paymentId: (req as { id?: string }).id };
        const line = (extra: Record<string, unknown>) => ({ rpc: rpc.subject, ...ids, ms: Math.round((performance.now() - started) * 10) / 10, ...extra });
        try {
          const res = await fn(req, rd, msg);
          if (!rpc.readOnly) log.info(line({ paymentId: ids.paymentId ?? (res as { id?: string }).id, outcome: "ok" }), "rpc");
          else if (log.isLevelEnabled("debug")) log.debug(line({ outcome: "ok" }), "rpc");
          return res;
        } catch (e) {
          log.info(line({ outcome: e instanceof DomainError ? e.code : "INTERNAL" }), "rpc");
          throw e;
        }
      },
      { queue: QUEUE, log },
    );

  const p = rpcs.payments;
  return [
    handle(p.create, (r, rd) => createPayment(rd, r.shopId, r.request)),
    handle(p.createKeyed, (r, rd) => createKeyed(rd, r.shopId, r.request, r.idempotency, operations.createPayment.success.status)),
    handle(p.noteKey, (r, rd) => noteKey(rd, r.shopId, r.idempotency)),
    handle(p.get, (r, rd) => getPayment(rd, r.shopId, r.id)),
    handle(p.lookup, (r, rd) => lookupPayment(rd, r.shopId, r.orderId)),
    handle(p.list, (r, rd) => listPayments(rd, r.shopId, r.query)),
    handle(p.cancel, (r, rd) => cancelPayment(rd, r.shopId, r.id)),
    handle(p.refund, ({ shopId, id, idempotencyKey, ...req }, rd, msg) => requestRefund(rd, shopId, id, { ...req, idempotencyKey: repeatKey(idempotencyKey, msg) })),
    handle(p.listRefunds, (r, rd) => listRefunds(rd, r.shopId, r.id)),
    handle(p.owner, async (r) => {
      const row = await anyPayment(d, r.id);
      return { id: row.id, shopId: row.shopId, accountId: row.accountId };
    }),
    handle(p.checkout, (r) => checkout(d, r.id)),
    handle(p.start, (r) => startPayment(d, r.id, r.method, r.saveMethod)),
    handle(p.sandboxOutcome, (r) => pageOutcome(d, r.id, r.outcome)),
    handle(p.capture, ({ shopId, id, ...req }, rd) => capturePayment(rd, shopId, id, req)),
    handle(p.sandboxComplete, (r, rd) => completeSandbox(rd, r.shopId, r.id, r.request)),
    handle(p.getMethod, (r, rd) => getMethod(rd, r.shopId, r.id)),
    handle(p.listMethods, (r, rd) => listMethods(rd, r.shopId, r.query)),
    handle(p.revokeMethod, (r, rd) => revokeMethod(rd, r.shopId, r.id)),
    handle(p.exportPage, (r) => exportPayments(d, r)),
    handle(p.connectors, () => ({ connectors: d.connectors.health() })),
    handle(p.reconcile, (r, rd) => reconcileNow(rd, { olderThanMs: r.olderThanMs ?? d.reconcileAfterMs, limit: r.limit, shopId: r.shopId })),
    handle(p.browse, (r) => browsePayments(d, r)),
    handle(p.history, async (r) => ({
      items: (await d.repo.finalEvents((await ownedPayment(d, r.shopId, r.id)).id)).map((e) => ({ status: e.status, at: new Date(e.at).toISOString() })),
    })),
    handle(p.stats, async (r) => ({ rows: await d.repo.dailyStats(r.shopIds, r.fromDay, r.toDay), refunds: await d.repo.dailyRefunds(r.shopIds, r.fromDay, r.toDay) })),
  ];
}
