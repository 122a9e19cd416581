import { PAYMENT_EVENTS_SUBJECT_PREFIX } from "@payaccept/contracts";
import { decodeJson, type Logger, type NatsConnection } from "@payaccept/platform";

type Listener = () => void;

/**
 * Tells open live-status streams that their payment moved. Payments publishes every final-status
 * event to JetStream; a plain subscription sees them as they are published, so no consumer state
 * is needed. Each replica hears every event and wakes only its own listeners; draining the
 * connection at shutdown ends the subscription.
 */
export class StatusFeed {
  private readonly listeners = new Map<string, Set<Listener>>();
  constructor(nc: NatsConnection, log: Logger) {
    nc.subscribe(`${PAYMENT_EVENTS_SUBJECT_PREFIX}.>`, {
      callback: (err, msg) => {
        if (err) return log.warn({ err }, "payment events subscription error");
        let paymentId: unknown;
        try {
          paymentId = decodeJson<{ paymentId?: unknown }>(msg.data).paymentId;
        } catch {
          return;
        }
        if (typeof paymentId === "string") for (const fn of this.listeners.get(paymentId) ?? []) fn();
      },
    });
  }

  watch(paymentId: string, fn: Listener): () => void {
    let set = this.listeners.get(paymentId);
    if (!set) this.listeners.set(paymentId, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.listeners.delete(paymentId);
    };
  }
}
