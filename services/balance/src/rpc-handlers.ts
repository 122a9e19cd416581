import { rpcs, UNNAMED_CALLER } from "@payaccept/contracts";
import { actorOf, repeatKey, requestIdOf, serve, type AuditTrail, type Logger, type NatsConnection, type Subscription } from "@payaccept/platform";
import { readBalance } from "./balance.ts";
import { listPayouts, payOut } from "./payouts.ts";
import { reserveRefund } from "./refunds.ts";
import type { LedgerStore } from "./store/ledger-store.ts";

export type BalanceDeps = { store: LedgerStore; holdHour: number; clock: () => number; log: Logger; audit: Pick<AuditTrail, "record"> };

/** Every balance RPC, in the queue group "balance" so replicas share the load. */
export function serveBalanceRpcs(nc: NatsConnection, { store, holdHour, clock, log, audit }: BalanceDeps): Subscription[] {
  const opts = { queue: "balance", log };
  return [
    serve(nc, rpcs.balance.get, (req) => readBalance(store, req.accountId, clock(), holdHour), opts),
    serve(nc, rpcs.balance.createPayout, async (req, msg) => {
      const payout = await payOut(store, { ...req, idempotencyKey: repeatKey(req.idempotencyKey, msg) }, clock(), holdHour);
      const requestId = requestIdOf(msg);
      log.info({ requestId, payoutId: payout.id, accountId: payout.accountId, amountKopecks: payout.amountKopecks }, "payout");
      // Keyed by the payout: a repeat with its idempotency key is the same entry.
      audit.record({
        id: `payout.created:${payout.id}`,
        action: "payout.created",
        actor: actorOf(msg) ?? UNNAMED_CALLER,
        at: Date.parse(payout.createdAt),
        accountId: payout.accountId,
        target: { type: "payout", id: payout.id },
        after: { amountKopecks: payout.amountKopecks, status: payout.status },
        requestId,
      });
      return payout;
    }, opts),
    serve(nc, rpcs.balance.listPayouts, (req) => listPayouts(store, req.accountId, req.limit, req.startingAfter), opts),
    serve(nc, rpcs.balance.reserveRefund, async (req, msg) => {
      const { reserved, creditedReceipt } = await reserveRefund(store, req, clock(), holdHour);
      // creditedReceipt: the hold came before the payment's SUCCESS event, whose copy from the stream will change nothing.
      log.info({ requestId: requestIdOf(msg), refundId: req.refundId, accountId: req.accountId, amountKopecks: req.amountKopecks, reserved, creditedReceipt }, "refund hold");
      return { reserved };
    }, opts),
  ];
}
