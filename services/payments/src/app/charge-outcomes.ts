import type { ConnectorId } from "@payaccept/contracts";
import type { PaymentRow } from "../store/payments-store.ts";

/** An outcome as applied: what the acquirer said (a ProviderResult's kind: provider-results.ts, outcomeKey) of which session, at which connector. */
export type OutcomeKey = { connector: ConnectorId; sessionId: string; kind: string };

/** How a report's application ended (provider-results.ts's Applied): only "applied" moved the payment. */
type Application = { result: string; row: PaymentRow };

/** How many outcomes wait for their second report at most; beyond it the oldest is forgotten (its report then takes the full path). */
const MAX_WAITING = 1024;

/**
 * The acquirer reports a charge's outcome twice: in the charge's answer and in its callback, in
 * either order and often within the same moment. A callback that comes while this process is
 * still at the acquirer with the charge waits for the answer, so the answer applies the outcome
 * with the payment it has in hand; the second report is a repeat, and when the first was applied
 * by this process the second waits for that commit and is answered with the payment as the
 * commit left it, without reading the payment or taking a transaction (docs/payments.md,
 * "Charges without the buyer"). Only a commit counts, and only in memory: after a restart, or at
 * another replica, the second report takes the full path and finds the repeat in the store.
 */
export class ChargeOutcomes {
  /** Per payment: the outcome its first report is applying, and the row its commit left (undefined: it did not move the payment). */
  private readonly waiting = new Map<string, OutcomeKey & { committed: Promise<PaymentRow | undefined> }>();
  /** The charges this process is making now, settled once their answer was applied (or none came). */
  private readonly charging = new Map<string, Promise<unknown>>();

  /** Makes the payment's charge (`charge`: the acquirer's call and its answer applied); its callback waits for it meanwhile. */
  async charge<T>(paymentId: string, charge: () => Promise<T>): Promise<T> {
    const made = charge();
    const settled = made.catch(() => undefined);
    this.charging.set(paymentId, settled);
    try {
      return await made;
    } finally {
      // Only its own entry: a later charge of the same payment may have taken the place meanwhile.
      if (this.charging.get(paymentId) === settled) this.charging.delete(paymentId);
    }
  }

  /** Once the charge of the payment this process is making now, if any, has its answer applied: bounded by the acquirer call's own timeout. */
  async charged(paymentId: string): Promise<void> {
    await this.charging.get(paymentId);
  }

  /**
   * The payment as this process's commit of the same outcome left it, when a first report of it
   * is applied (or being applied) here: the report is a repeat. Otherwise undefined, and the
   * report takes the full path. The first report is forgotten either way.
   */
  async repeatOf(paymentId: string, key: OutcomeKey | undefined): Promise<PaymentRow | undefined> {
    const first = this.waiting.get(paymentId);
    if (!first) return undefined;
    this.waiting.delete(paymentId);
    const same = key !== undefined && first.connector === key.connector && first.sessionId === key.sessionId && first.kind === key.kind;
    return same ? first.committed : undefined;
  }

  /** A first report of the payment's outcome, being applied by `applied`. */
  applying(paymentId: string, key: OutcomeKey, applied: Promise<Application>): void {
    if (this.waiting.size >= MAX_WAITING) this.waiting.delete(this.waiting.keys().next().value!);
    this.waiting.set(paymentId, { ...key, committed: applied.then((a) => (a.result === "applied" ? a.row : undefined), () => undefined) });
  }
}
