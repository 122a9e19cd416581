import { rpcs, type CheckoutView, type PaymentMethod, type SandboxOutcome as SandboxOutcomes } from "@payaccept/contracts";
import { call, type NatsConnection } from "@payaccept/platform";
import type { z } from "zod";

type SandboxOutcome = z.infer<typeof SandboxOutcomes>;

/**
 * The payment page's view of payments over NATS. Every request has a timeout: payments being
 * down surfaces as DomainError UNAVAILABLE, which the page shows as "temporarily unavailable".
 */
export class CheckoutClient {
  constructor(
    private readonly nc: NatsConnection,
    private readonly timeouts: { readMs: number; startMs: number },
  ) {}

  get(id: string): Promise<CheckoutView> {
    return call(this.nc, rpcs.payments.checkout, { id }, this.timeouts.readMs);
  }

  start(id: string, method: PaymentMethod, saveMethod: boolean): Promise<CheckoutView> {
    return call(this.nc, rpcs.payments.start, { id, method, saveMethod }, this.timeouts.startMs);
  }

  sandboxOutcome(id: string, outcome: SandboxOutcome): Promise<CheckoutView> {
    return call(this.nc, rpcs.payments.sandboxOutcome, { id, outcome }, this.timeouts.startMs);
  }
}
