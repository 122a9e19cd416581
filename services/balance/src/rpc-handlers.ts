import { DomainError, isReason, rpcs, UNNAMED_CALLER, type AccountDetailsView } from "@payaccept/contracts";
import { actorOf, answerWithinMs, call, callIdOf, repeatKey, requestIdOf, serve, type AuditTrail, type Logger, type Msg, type NatsConnection, type Subscription } from "@payaccept/platform";
import { readBalance } from "./balance.ts";
import { payerOf, type DetailsOf, type OrderSettings } from "./payment-orders.ts";
import { toPayout } from "./payout-states.ts";
import { getSchedule, setSchedule } from "./payout-schedule.ts";
import { createPayout, getPayout, listPayouts, recordOutcome } from "./payouts.ts";
import { batchOf, EXCHANGE_FILE_RAIL, exportPayouts, fileOf } from "./rails/exchange-file/export.ts";
import { importStatement } from "./rails/exchange-file/statement.ts";
import { reserveRefund } from "./refunds.ts";
import { CallerGone, type LedgerStore } from "./store/ledger-store.ts";

export type BalanceDeps = {
  store: LedgerStore;
  holdHour: number;
  clock: () => number;
  log: Logger;
  audit: Pick<AuditTrail, "record">;
  settings: OrderSettings;
  /** PAYOUT_RAIL: exchange files are made only on their own rail. */
  rail: string;
  /** The account's details, asked of the directory (a payout needs them). */
  detailsOf: DetailsOf;
  accountDetails: (accountId: string) => Promise<AccountDetailsView>;
  /** Wakes the payout events' outbox after a commit that wrote events. */
  published: () => void;
};

/** The directory's answers for the payouts: one account's details, or many accounts' (500 at a time). */
export function directoryDetails(nc: NatsConnection, timeoutMs: number): Pick<BalanceDeps, "detailsOf" | "accountDetails"> {
  return {
    accountDetails: (accountId) => call(nc, rpcs.directory.getAccountDetails, { accountId }, timeoutMs),
    detailsOf: async (accountIds) => {
      const views = new Map<string, AccountDetailsView>();
      for (let i = 0; i < accountIds.length; i += 500) {
        const { items } = await call(nc, rpcs.directory.detailsOfAccounts, { accountIds: accountIds.slice(i, i + 500) }, timeoutMs);
        for (const v of items) views.set(v.accountId, v);
      }
      return views;
    },
  };
}

const callerLabel = (msg: Msg) => (actorOf(msg) ?? UNNAMED_CALLER).label;

/** Every balance RPC, in the queue group "balance" so replicas share the load. */
export function serveBalanceRpcs(nc: NatsConnection, deps: BalanceDeps): Subscription[] {
  const { store, holdHour, clock, log, audit } = deps;
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
      // Money is taken only for an account whose details say where it goes (docs/balance.md, "Payouts").
      // A directory that does not answer (down, or the release before it during a rolling upgrade)
      // does not stop payouts: the rail checks the details again before anything is sent.
      const view = await deps.accountDetails(req.accountId).catch((e: unknown) => {
        if (!isReason(e, "SERVICE_UNAVAILABLE")) throw e;
        log.warn({ requestId: requestIdOf(msg), accountId: req.accountId }, "directory did not answer: payout made without checking its details now; it is sent only once they exist");
        return undefined;
      });
      if (view?.details === null) throw new DomainError("PAYOUT_DETAILS_MISSING");
      const { payout: made, created } = await whileAwaited(msg, { op: "payout", accountId: req.accountId, amountKopecks: req.amountKopecks }, (waitMs) =>
        createPayout(store, { ...req, idempotencyKey: repeatKey(req.idempotencyKey, msg) }, clock(), holdHour, waitMs),
      );
      const payout = toPayout(made);
      if (created) deps.published();
      const requestId = requestIdOf(msg);
      log.info({ requestId, payoutId: payout.id, accountId: payout.accountId, amountKopecks: payout.amountKopecks, created }, "payout");
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
    serve(nc, rpcs.balance.getPayout, (req) => getPayout(store, req.accountId, req.id), opts),
    serve(nc, rpcs.balance.getSchedule, (req) => getSchedule(store, req.accountId), opts),
    serve(nc, rpcs.balance.setSchedule, async (req, msg) => {
      const { view, before, changed } = await setSchedule(store, req.accountId, req.schedule, clock());
      if (changed) {
        log.info({ requestId: requestIdOf(msg), accountId: req.accountId, schedule: req.schedule, nextPayoutAt: view.nextPayoutAt }, "payout schedule set");
        audit.record({
          id: `payout_schedule.changed:${callIdOf(msg) ?? Bun.randomUUIDv7()}`,
          action: "payout_schedule.changed",
          actor: actorOf(msg) ?? UNNAMED_CALLER,
          at: clock(),
          accountId: req.accountId,
          before: before ? { ...before } : null,
          after: req.schedule ? { ...req.schedule, nextPayoutAt: view.nextPayoutAt } : null,
          requestId: requestIdOf(msg),
        });
      }
      return view;
    }, opts),
    serve(nc, rpcs.balance.payoutsInStatus, async (req) => ({ items: (await store.payoutsInStatus(req.status, req.limit)).map(toPayout) }), opts),
    serve(nc, rpcs.balance.exportPayouts, async (req, msg) => {
      if (deps.rail !== EXCHANGE_FILE_RAIL) throw new DomainError("PAYOUT_RAIL_NOT_FILES", { rail: deps.rail });
      payerOf(deps.settings);
      const made = await exportPayouts(store, { detailsOf: deps.detailsOf, settings: deps.settings, now: clock(), by: callerLabel(msg), limit: req.limit });
      if (made.batch) deps.published();
      log.info({ requestId: requestIdOf(msg), batchId: made.batch?.id, orders: made.batch?.orders ?? 0, totalKopecks: made.batch?.totalKopecks ?? 0, waiting: made.waiting.length }, "exchange file made");
      return {
        batch: made.batch,
        fileBase64: made.file ? Buffer.from(made.file).toString("base64") : null,
        waiting: made.waiting.map((w) => ({ ...w, until: w.until === null ? null : new Date(w.until).toISOString() })),
      };
    }, opts),
    serve(nc, rpcs.balance.payoutBatches, async (req) => ({ items: (await store.latestBatches(req.limit)).map(batchOf) }), opts),
    serve(nc, rpcs.balance.payoutBatchFile, async (req) => {
      const batch = await store.batch(req.batchId);
      if (!batch) throw new DomainError("PAYOUT_BATCH_NOT_FOUND");
      return { batch: batchOf(batch), fileBase64: Buffer.from(fileOf(batch.file)).toString("base64") };
    }, opts),
    serve(nc, rpcs.balance.importStatement, async (req, msg) => {
      const report = await importStatement(store, Buffer.from(req.fileBase64, "base64"), { payer: payerOf(deps.settings), now: clock(), by: callerLabel(msg) });
      if (!report.duplicate) deps.published();
      log.info(
        { requestId: requestIdOf(msg), sha256: report.sha256, duplicate: report.duplicate, paid: report.paid.length, returned: report.returned.length, failed: report.failed.length, alreadyApplied: report.alreadyApplied.length },
        "bank statement imported",
      );
      return report;
    }, opts),
    serve(nc, rpcs.balance.recordPayoutOutcome, async (req, msg) => {
      const payout = await recordOutcome(store, req, clock());
      deps.published();
      audit.record({
        id: `payout.outcome_recorded:${payout.id}:${req.status}`,
        action: "payout.outcome_recorded",
        actor: actorOf(msg) ?? UNNAMED_CALLER,
        at: clock(),
        accountId: payout.accountId,
        target: { type: "payout", id: payout.id },
        after: { status: req.status, reason: req.reason ?? null },
        requestId: requestIdOf(msg),
      });
      return payout;
    }, opts),
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
