import { AuditEvent, AUDIT_STREAM, AUDIT_SUBJECT_PREFIX, rpcs, type RpcResponse } from "@payaccept/contracts";
import { AckPolicy, DeliverPolicy } from "@nats-io/jetstream";
import { decodeOrTerm, durableConsumer, ensureAuditStream, ensureDurable, retryDelayMs, runConsumerLoop, type Backoff, type Logger, type NatsConnection, type RunningLoop } from "@payaccept/platform";
import type { z } from "zod";
import type { DirectoryStore } from "../store/directory-store.ts";
import { auditEventOfRow, auditRowOf } from "./entries.ts";

export const AUDIT_DURABLE = "directory-audit";
/** Storing an entry takes a millisecond; an unacked one after this belongs to a replica that died. */
const ACK_WAIT_MS = 30_000;
/** Entries stored at once; each is its own insert, a copy of one already there changes nothing. */
const CONCURRENCY = 16;

/** Between a lost consumer and the next try to make it again. */
const RESTART: Backoff = { baseMs: 250, capMs: 5_000 };

/**
 * The audit intake, kept running: when its loop ends (NATS lost its store, the stream or the
 * durable was deleted) the stream and the durable are made again and the loop restarted, instead
 * of ending the directory, which must stay up to publish the directory again after such a loss.
 * Events published meanwhile wait in the publishers' AuditTrail until the stream is back.
 */
export function keepConsumingAuditEvents(nc: NatsConnection, store: DirectoryStore, now: () => number, log: Logger): { isActive: () => boolean; stop: () => Promise<void> } {
  let current: RunningLoop | undefined;
  let stopped = false;
  let wake = () => {};
  const stopping = new Promise<void>((resolve) => (wake = resolve));
  const running = (async () => {
    for (let failures = 0; !stopped; ) {
      try {
        current = await consumeAuditEvents(nc, store, now, log);
        failures = 0;
        await current.ended;
        if (!stopped) log.warn({ consumer: AUDIT_DURABLE }, "audit intake ended; making its consumer again");
      } catch (err) {
        failures++;
        if (!stopped) log.warn({ err: (err as Error).message, consumer: AUDIT_DURABLE }, "audit intake cannot start yet; retrying");
      }
      if (!stopped) await Promise.race([Bun.sleep(retryDelayMs(RESTART, Math.max(1, failures))), stopping]);
    }
  })();
  return {
    isActive: () => current?.isActive() ?? false,
    stop: async () => {
      stopped = true;
      wake();
      await current?.stop();
      await running;
    },
  };
}

/**
 * The other services' audit events (AUDIT stream) into the log: stored, then acked, so a crash
 * in between is a redelivery that the entry's key (its id) turns into nothing.
 */
async function consumeAuditEvents(nc: NatsConnection, store: DirectoryStore, now: () => number, log: Logger): Promise<RunningLoop> {
  const jsm = await ensureAuditStream(nc, log);
  await ensureDurable(
    jsm,
    AUDIT_STREAM,
    {
      durable_name: AUDIT_DURABLE,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: `${AUDIT_SUBJECT_PREFIX}.>`,
      ack_wait: ACK_WAIT_MS * 1_000_000,
      max_ack_pending: 1000,
    },
    log,
  );
  const consumer = await durableConsumer(nc, AUDIT_STREAM, AUDIT_DURABLE, log);
  return runConsumerLoop(consumer, {
    name: AUDIT_DURABLE,
    concurrency: CONCURRENCY,
    log,
    handle: async (m) => {
      const event = decodeOrTerm(m, AuditEvent, "audit event", log);
      if (!event) return;
      const created = await store.insertAudit([auditRowOf(event, now())]);
      m.ack();
      log.debug({ auditId: event.id, action: event.action, created: created > 0 }, "audit event stored");
    },
  });
}

type Request = z.output<typeof rpcs.directory.auditLog.request>;

/** A page of the log, newest first, for the dashboard (one account) and operators (any). */
export async function auditLog(store: DirectoryStore, req: Request): Promise<RpcResponse<typeof rpcs.directory.auditLog>> {
  const ms = (v: string | undefined) => (v === undefined ? undefined : Date.parse(v));
  const rows = await store.auditPage({
    accountId: req.accountId,
    shopId: req.shopId,
    action: req.action,
    actor: req.actor,
    from: ms(req.from),
    to: ms(req.to),
    before: req.before && { at: Date.parse(req.before.at), id: req.before.id },
    limit: req.limit,
  });
  return { items: rows.map(auditEventOfRow) };
}
