import { PAYMENT_CHANGES_HEARTBEAT_MS, PAYMENT_CHANGES_SOURCE_HEADER, PAYMENT_CHANGES_SUBJECT, type PaymentChanges } from "@payaccept/contracts";
import { encodeJson, introduceInReplies, type NatsConnection } from "@payaccept/platform";

/**
 * Tells the gateways' read models which payments' views a commit changed (contracts'
 * PaymentChanges). `changed` is called by the store's after-commit hooks; the ids of one turn go
 * in one notice, published from a microtask queued by the first of them, so before any reply that
 * the commit's callers send (their continuations are queued after it): a caller that reads right
 * after its own write finds the read model already told. nats.js writes every publish of a turn in
 * one socket write (infra/patches), in the order published. A notice with no ids goes out at start
 * and every heartbeat, so a reader can tell this process from one gone silent. The replies that introduce this process to a caller name the
 * source (PAYMENT_CHANGES_SOURCE_HEADER): a gateway that meets a payments process whose notices it
 * does not hear stops answering from memory.
 */
export class ChangeNotices {
  readonly source = Bun.randomUUIDv7();
  private seq = 0;
  private ids: string[] = [];
  private readonly heartbeat: ReturnType<typeof setInterval>;

  constructor(
    private readonly nc: NatsConnection,
    heartbeatMs = PAYMENT_CHANGES_HEARTBEAT_MS,
  ) {
    introduceInReplies(nc, PAYMENT_CHANGES_SOURCE_HEADER, this.source);
    this.heartbeat = setInterval(() => this.publish([]), heartbeatMs);
    // Heard at once, before this process serves a read: a reader drops what it kept when a process
    // starts (its store may have been restored from a backup).
    this.publish([]);
  }

  changed(paymentId: string): void {
    if (this.ids.push(paymentId) > 1) return;
    queueMicrotask(() => {
      const ids = this.ids;
      this.ids = [];
      this.publish(ids);
    });
  }

  stop(): void {
    clearInterval(this.heartbeat);
  }

  private publish(ids: string[]): void {
    const notice: PaymentChanges = { source: this.source, seq: ++this.seq, ids };
    try {
      this.nc.publish(PAYMENT_CHANGES_SUBJECT, encodeJson(notice));
    } catch {
      // Closed or draining (shutdown): the readers see this source fall silent and drop what it may have changed.
    }
  }
}
