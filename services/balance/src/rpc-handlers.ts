import { rpcs } from "@payaccept/contracts";
import { repeatKey, requestIdOf, serve, type Logger, type NatsConnection, type Subscription } from "@payaccept/platform";
import { readBalance } from "./balance.ts";
import { listPayouts, payOut } from "./payouts.ts";
import { reserveRefund } from "./refunds.ts";
import type { LedgerStore } from "./store/ledger-store.ts";

export type BalanceDeps = { store: LedgerStore; holdHour: number; clock: () => number; log: Logger };

/** Every balance RPC, in the queue group "balance" so replicas share the load. */
export function serveBalanceRpcs(nc: NatsConnection, { store, holdHour, clock, log }: BalanceDeps): Subscription[] {
  const opts = { queue: "balance", log };
  return [
    serve(nc, rpcs.balance.get, (req) => readBalance(store, req.accountId, clock(), holdHour), opts),
    serve(nc, rpcs.balance.createPayout, async (req, msg) => {
      const payout = await payOut(store, { ...req, idempotencyKey: repeatKey(req.idempotencyKey, msg) }, clock(), holdHour);
      log.info({ requestId: requestIdOf(msg), payoutId: payout.id, accountId: payout.accountId, amountKopecks: payout.amountKopecks }, "payout");
      return payout;
    }, opts),
    serve(nc, rpcs.balance.listPayouts, (req) => listPayouts(store, req.accountId, req.limit, req.startingAfter), opts),
    serve(nc, rpcs.balance.reserveRefund, async (req, msg) => {
      const held = await reserveRefund(store, req, clock(), holdHour);
      log.info({ requestId: requestIdOf(msg), refundId: req.refundId, accountId: req.accountId, amountKopecks: req.amountKopecks, reserved: held.reserved }, "refund hold");
      return held;
    }, opts),
  ];
}
