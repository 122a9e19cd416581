import { payoutEventSubject, PAYOUTS_STREAM } from "@payaccept/contracts";
import { encodeJson, PollingWorker, publishWithCopies, type Logger, type NatsConnection } from "@payaccept/platform";
import type { JetStreamClient } from "@nats-io/jetstream";
import type { LedgerStore } from "./store/ledger-store.ts";

/** Events published per pass at most; the next pass takes the rest. */
const PASS = 200;

/**
 * One pass of the payout events' outbox (docs/balance.md, "Payout statuses"): the committed events
 * not yet published go to the PAYOUTS stream in commit order, one after the other (a payout's SENT
 * before its PAID), each with its id as Nats-Msg-Id, and are marked after their PubAcks. A failed
 * publish ends the pass: what follows waits for the next, so the order holds. A crash between the
 * publish and the mark publishes again, which the stream's duplicate window and the consumers'
 * keys turn into nothing. Returns how many went out.
 */
type OutboxDeps = { store: LedgerStore; publish: (subject: string, data: Uint8Array, msgID: string) => Promise<unknown>; now: () => number; log: Logger };

export async function publishPayoutEvents(deps: OutboxDeps): Promise<number> {
  const rows = await deps.store.unpublishedPayoutEvents(PASS);
  const published: number[] = [];
  try {
    for (const row of rows) {
      await deps.publish(payoutEventSubject(row.status), encodeJson(row.event), row.event.eventId);
      published.push(row.seq);
    }
  } finally {
    await deps.store.markPayoutEventsPublished(published, deps.now());
  }
  if (published.length > 0) deps.log.debug({ events: published.length, stream: PAYOUTS_STREAM }, "payout events published");
  return published.length;
}

/**
 * The outbox's worker: a pass at start, then one whenever `wake()` says a commit wrote an event
 * (a wake during a pass runs another pass right after it, as the pass may have read the outbox
 * before that commit), at once again after a full pass, and every `sweepMs` for what a crash or
 * NATS away left. A failed pass waits for the sweep.
 */
export const payoutEventsRelay = (deps: OutboxDeps, sweepMs: number): PollingWorker =>
  new PollingWorker(async () => ((await publishPayoutEvents(deps)) === PASS ? "more" : null), { idleMs: sweepMs, now: deps.now }, (err) =>
    deps.log.warn({ err }, "payout events not published yet; the next pass tries again"),
  );

/** Publishes to the PAYOUTS stream, copied while unanswered (platform publishWithCopies). */
export const payoutEventPublisher = (nc: NatsConnection, js: JetStreamClient, timeoutMs: number) => (subject: string, data: Uint8Array, msgID: string) =>
  publishWithCopies(nc, js, subject, data, { msgID, timeoutMs });
