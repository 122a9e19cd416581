import type { PaymentMethod, ProviderRefund, ProviderSession } from "@payaccept/contracts";

/**
 * What payments needs from an acquirer. A real provider's adapter implements this; the HTTP one
 * speaks docs/acquirer-protocol.md to the acquirer emulator.
 */
export interface ProviderPort {
  /** Registers a payment attempt; idempotent by (paymentId, method). */
  createSession(req: {
    paymentId: string;
    method: PaymentMethod;
    amountKopecks: number;
    description: string | null;
    returnUrl: string;
    /** The buyer's deadline: the provider refuses a card after it (a QR may still be paid late). */
    expiresAt: number;
  }): Promise<ProviderSession>;
  /** Makes a session unpayable (the buyer switched method); idempotent; `rejected` once it is paid. */
  cancelSession(sessionId: string): Promise<void>;
  /** Returns amountKopecks to the buyer; idempotent by refundId (a repeat returns the first answer). */
  refund(sessionId: string, amountKopecks: number, refundId: string): Promise<ProviderRefund>;
}

/**
 * `unavailable`: no answer, a timeout or a 5xx; the outcome is unknown and a retry is safe.
 * `rejected`: the provider answered and said no (4xx, or a reply that breaks the protocol).
 */
export class ProviderError extends Error {
  constructor(
    readonly kind: "unavailable" | "rejected",
    message: string,
  ) {
    super(message);
  }
}
