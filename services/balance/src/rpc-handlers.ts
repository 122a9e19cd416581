import { DomainError, rpcs, UNNAMED_CALLER } from "@payaccept/contracts";
import { actorOf, answerWithinMs, repeatKey, requestIdOf, serve, type AuditTrail, type Logger, type Msg, type NatsConnection, type Subscription } from "@payaccept/platform";
import { readBalance } from "./balance.ts";
import { listPayouts, payOut } from "./payouts.ts";
import { reserveRefund } from "./refunds.ts";
import { CallerGone, type LedgerStore } from "./store/ledger-store.ts";

export type BalanceDeps = { store: LedgerStore; holdHour: number; clock: () => number; log: Logger; audit: Pick<AuditTrail, "record"> };

/** Every balance RPC, in the queue group "balance" so replicas share the load. */
export function serveBalanceRpcs(nc: NatsConnection, { store, holdHour, clock, log, audit }: BalanceDeps): Subscription[] {
  const opts = { queue: "balance", log };
  /**
   * A write that takes money, bounded by its caller's patience: one that could not commit while
   * the caller still waited (a queue on the account's row) took nothing, and says so in the log;
   * the caller, gone, has counted it as SERVICE_UNAVAILABLE already.
   */
  const whileAwaited = async <T>(msg: Msg, what: Record<string, unknown>, write: (waitMs: number | undefined) => Promise<T>): Promise<T> => {
    try {
      return await write(answerWithinMs(msg));
    } catch (e) {
      if (!(e instanceof CallerGone)) throw e;
      log.warn({ requestId: requestIdOf(msg), ...what }, "not taken: the caller stopped waiting before the account was free");
      throw new DomainError("SERVICE_UNAVAILABLE", { service: "balance" });
    }
  };
  return [
    serve(nc, rpcs.balance.get, (req) => readBalance(store, req.accountId, clock(), holdHour), opts),
    serve(nc, rpcs.balance.createPayout, async (req, msg) => {
      const payout = await whileAwaited(msg, { op: "payout", accountId: req.accountId, amountKopecks: req.amountKopecks }, (waitMs) =>
        payOut(store, { ...req, idempotencyKey: repeatKey(req.idempotencyKey, msg) }, clock(), holdHour, waitMs),
      );
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
      const { reserved, creditedReceipt } = await whileAwaited(msg, { op: "refund hold", refundId: req.refundId, accountId: req.accountId, amountKopecks: req.amountKopecks }, (waitMs) =>
        reserveRefund(store, req, clock(), holdHour, waitMs),
      );
      // creditedReceipt: the hold came before the payment's SUCCESS event, whose copy from the stream will change nothing.
      log.info({ requestId: requestIdOf(msg), refundId: req.refundId, accountId: req.accountId, amountKopecks: req.amountKopecks, reserved, creditedReceipt }, "refund hold");
      return { reserved };
    }, opts),
  ];
}
