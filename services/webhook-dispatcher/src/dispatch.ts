import { failure, WEBHOOK_UNSENT_REASON, type ShopRecord } from "@payaccept/contracts";
import { annotateSpan, type Logger, type Random } from "@payaccept/platform";
import type { DispatchCommand } from "./bus/streams.ts";
import type { AttemptOutcome, WebhookRequest } from "./delivery/send.ts";
import { signingSecretsOf } from "./delivery/signature.ts";
import { type ATTEMPT_OUTCOMES, shopFailures, webhookAttemptDuration, webhookAttempts, webhookDeferrals, webhookSeriesFinished } from "./metrics.ts";
import { nextStep } from "./schedule.ts";
import type { ShopConcurrency } from "./shop-concurrency.ts";
import type { DeliveryStore } from "./store/delivery-store.ts";
import type { DeliveryRow } from "./store/schema.ts";
import { failureColumns, lastErrorColumns } from "./store/failure-columns.ts";

/** What to tell JetStream about a dispatch message. "leave" answers nothing (another copy is being handled). */
export type Disposition = { kind: "ack" } | { kind: "nak"; delayMs: number } | { kind: "leave" };

export type DispatchDeps = {
  store: DeliveryStore;
  /**
   * A shop's directory record; in the service the watched copy, else a fresh read of the bucket
   * (DirectoryCache.shopOrRead): a shop made a moment ago can reach the dispatcher as an event
   * before it reaches the watch (a watch being re-created after a NATS node hung lags by seconds),
   * and a miss here is a failed attempt whose retry comes a minute later. A read that fails throws:
   * the message is offered again soon and no attempt is counted.
   */
  shop: (shopId: string) => ShopRecord | undefined | Promise<ShopRecord | undefined>;
  concurrency: ShopConcurrency;
  send: (req: WebhookRequest) => Promise<AttemptOutcome>;
  retryDelays: readonly number[];
  /** The jitter of the retry pauses (Math.random); tests pin it to get the schedule exactly. */
  random?: Random;
  now: () => number;
  log: Logger;
};

const ACK = { kind: "ack" } as const;

/**
 * Handles one delivery of a dispatch message. The store, not the message's delivery count, says
 * which attempt is next and when it is due: a message that comes back early (a deferral, or an
 * ack wait that ran out after a crash) is sent back for the time that remains, so attempts keep
 * the schedule's spacing across restarts and are never numbered twice.
 */
export function createDispatcher(deps: DispatchDeps) {
  // A copy JetStream hands out again while this process still works on the first.
  const inFlight = new Set<string>();

  return async function dispatch(cmd: DispatchCommand): Promise<Disposition> {
    const key = `${cmd.deliveryId}:${cmd.series}`;
    if (inFlight.has(key)) return { kind: "leave" };
    // Claimed before the first await, so a copy arriving while the row is read is left alone too.
    inFlight.add(key);
    try {
      const delivery = await deps.store.get(cmd.deliveryId);
      const waiting = untilDue(delivery, cmd.series, deps.now());
      if (waiting || !delivery) return waiting ?? ACK;
      const slot = deps.concurrency.acquire(delivery.shopId);
      if (!slot) {
        webhookDeferrals.inc();
        return { kind: "nak", delayMs: deps.concurrency.deferralMs(delivery.shopId) };
      }
      const release = slot instanceof Promise ? await slot : slot;
      try {
        return await attempt(delivery, deps);
      } finally {
        release();
      }
    } finally {
      inFlight.delete(key);
    }
  };
}

/** Null when the delivery's next attempt is due now; otherwise what to do with the message. */
function untilDue(delivery: DeliveryRow | undefined, series: number, now: number): Disposition | null {
  // Unknown, superseded by a newer series, or already finished (a crash came before the ack).
  if (!delivery || delivery.series !== series || delivery.result !== "pending") return ACK;
  if (delivery.nextAttemptAt !== null && delivery.nextAttemptAt > now) return { kind: "nak", delayMs: delivery.nextAttemptAt - now };
  return null;
}

async function attempt(delivery: DeliveryRow, deps: DispatchDeps): Promise<Disposition> {
  const number = delivery.seriesAttempts + 1;
  annotateSpan({ "payaccept.delivery.id": delivery.id, "payaccept.payment.id": delivery.paymentId, "payaccept.webhook.series": delivery.series, "payaccept.webhook.attempt": number });
  const shop = await deps.shop(delivery.shopId);
  const startedAt = deps.now();
  const outcome = await attemptOutcome(delivery, shop, deps);
  const step = nextStep(outcome, number, deps.retryDelays, deps.random);
  const at = deps.now();
  const nextAttemptAt = step.retryInMs === null ? null : at + step.retryInMs;
  const httpStatus = outcome.kind === "blocked" ? null : outcome.httpStatus;
  const error = outcome.kind === "delivered" ? null : outcome.error;
  const recorded = await deps.store.recordAttempt(
    { deliveryId: delivery.id, series: delivery.series, attempt: number, startedAt, durationMs: outcome.durationMs, httpStatus, ...failureColumns(error) },
    { result: step.result, ...lastErrorColumns(step.lastError), nextAttemptAt, at },
  );
  const fields = {
    deliveryId: delivery.id,
    paymentId: delivery.paymentId,
    status: delivery.status,
    shopId: delivery.shopId,
    series: delivery.series,
    attempt: number,
    httpStatus,
    error: error?.reason,
    errorParams: error?.params,
    durationMs: outcome.durationMs,
    result: step.result,
    retryInMs: step.retryInMs,
  };
  if (!recorded) {
    // Another copy logged this attempt number first; follow the state it left.
    deps.log.warn(fields, "webhook attempt already logged by a concurrent copy; this one is not counted");
    return untilDue(await deps.store.get(delivery.id), delivery.series, deps.now()) ?? { kind: "nak", delayMs: 0 };
  }
  const counted = metricOutcome(outcome);
  webhookAttempts.inc({ outcome: counted });
  if (counted !== "no_url") shopFailures.record(delivery.shopId, counted !== "delivered");
  webhookAttemptDuration.observe(outcome.durationMs / 1000);
  if (step.result !== "pending") webhookSeriesFinished.inc({ result: step.result });
  if (outcome.kind === "delivered") deps.log.info(fields, "webhook delivered");
  else deps.log.warn(fields, step.result === "pending" ? "webhook attempt failed; will retry" : `webhook ${step.result}`);
  return step.retryInMs === null ? ACK : { kind: "nak", delayMs: step.retryInMs };
}

/**
 * An attempt of a shop without a webhook URL is `no_url`, apart from `failed`: nothing was sent, so
 * it must not raise the failure ratios that page the on-call engineer (infra/prometheus).
 */
function metricOutcome(outcome: AttemptOutcome): (typeof ATTEMPT_OUTCOMES)[number] {
  return outcome.kind === "failed" && outcome.error.reason === WEBHOOK_UNSENT_REASON ? "no_url" : outcome.kind;
}

/**
 * A shop without a webhook URL still runs its schedule, each attempt logged as not sent
 * (WEBHOOK_UNSENT_REASON: the figures count it as unsent, not failed), so a URL set within the
 * retry window still gets the event.
 */
function attemptOutcome(delivery: DeliveryRow, shop: ShopRecord | undefined, deps: DispatchDeps): Promise<AttemptOutcome> {
  if (!shop) return Promise.resolve({ kind: "failed", httpStatus: null, error: failure("SHOP_NOT_FOUND"), durationMs: 0 });
  if (!shop.webhookUrl) return Promise.resolve({ kind: "failed", httpStatus: null, error: failure(WEBHOOK_UNSENT_REASON), durationMs: 0 });
  return deps.send({ url: shop.webhookUrl, body: delivery.body, ...signingSecretsOf(shop, deps.now()) });
}
