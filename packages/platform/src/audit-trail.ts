import { jetstream, type JetStreamClient } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { AuditEvent, auditSubject, type AuditAction, type AuditActor } from "@payaccept/contracts";
import { encodeJson, publishWithCopies } from "./bus.ts";
import { ensureAuditStream } from "./jetstream.ts";
import type { Logger } from "./log.ts";
import { retryDelayMs, type Backoff } from "./retry.ts";

/** What a service says of an action; the trail fills in the rest (no target, no before/after). */
export type AuditFields = {
  /** Unique per action, derived from what it made (`refund:<id>`): a repeat of the action is recorded once. */
  id: string;
  action: AuditAction;
  actor: AuditActor;
  /** Epoch ms on the service's store clock. */
  at: number;
  accountId: string | null;
  shopId?: string | null;
  target?: { type: string; id: string } | null;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  requestId?: string;
};

export function auditEventOf(f: AuditFields): AuditEvent {
  return AuditEvent.parse({
    id: f.id,
    at: new Date(f.at).toISOString(),
    action: f.action,
    actor: f.actor,
    accountId: f.accountId,
    shopId: f.shopId ?? null,
    target: f.target ?? null,
    before: f.before ?? null,
    after: f.after ?? null,
    ...(f.requestId ? { requestId: f.requestId } : {}),
  });
}

/** Until it lands: a NATS outage delays an entry, it does not lose it. */
const RETRY: Backoff = { baseMs: 250, capMs: 10_000 };
/** Entries waiting at most; beyond it the oldest is dropped (said in the log): memory stays bounded through a long outage. */
const MAX_WAITING = 10_000;

/**
 * How a service records what it did for someone in the audit log (docs/directory.md, "Audit log"):
 * record() after the action committed, and the event is published to the AUDIT stream with its id
 * as Nats-Msg-Id, retried in the background until JetStream takes it (copies go out like an
 * idempotent call's), and the directory stores it once. close() gives the entries still waiting
 * a last chance within the shutdown's grace. What it does not cover: a process killed between
 * its commit and the publish loses that entry (a repeat of the action, e.g. a retried refund with
 * its key, records it again).
 */
export class AuditTrail {
  private readonly waiting: AuditEvent[] = [];
  private draining: Promise<void> | undefined;
  private js: JetStreamClient | undefined;
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly log: Logger,
    private readonly timeoutMs: number,
  ) {}

  record(fields: AuditFields): void {
    const event = auditEventOf(fields);
    if (this.waiting.length >= MAX_WAITING) {
      const dropped = this.waiting.shift()!;
      this.log.error({ auditId: dropped.id, action: dropped.action }, "audit entry dropped: too many waiting for NATS");
    }
    this.waiting.push(event);
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
  }

  /** Resolves once nothing waits (tests; shutdown through close()). */
  async settled(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /** At shutdown: one more round for what waits, bounded by the caller's grace. */
  async close(): Promise<void> {
    this.closed = true;
    await this.draining;
    if (this.waiting.length > 0) this.log.error({ waiting: this.waiting.length }, "audit entries not published before shutdown");
  }

  private async drain(): Promise<void> {
    for (let failures = 0; this.waiting.length > 0; ) {
      const event = this.waiting[0]!;
      try {
        await this.publish(event);
        this.waiting.shift();
        failures = 0;
        this.log.debug({ auditId: event.id, action: event.action }, "audit entry published");
      } catch (err) {
        if (this.closed) return;
        failures++;
        const retryInMs = retryDelayMs(RETRY, failures);
        this.log.warn({ err: (err as Error).message, auditId: event.id, waiting: this.waiting.length, retryInMs }, "audit entry not published yet; retrying");
        await Bun.sleep(retryInMs);
        // The stream may be missing (a fresh NATS, or one that lost its store): make it again.
        await ensureAuditStream(this.nc).catch(() => undefined);
      }
    }
  }

  private async publish(event: AuditEvent): Promise<void> {
    if (!this.js) {
      await ensureAuditStream(this.nc);
      this.js = jetstream(this.nc);
    }
    await publishWithCopies(this.nc, this.js, auditSubject(event.action), encodeJson(event), { msgID: event.id, timeoutMs: this.timeoutMs });
  }
}
