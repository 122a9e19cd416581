import type { PaymentMethod, ProviderRefund, ProviderSavedMethod, ProviderSession, ProviderSessionState, Reason } from "@payaccept/contracts";

/** Why the provider did not take the money, as a reason of the catalogue with its parameters. */
export type ProviderFailure = { reason: Reason; params: Record<string, unknown> };

/**
 * A session as the provider has it now, with its refusal in the catalogue's terms: `failure` is set
 * for DECLINED (insufficient funds, an expired card, a revoked method…) and for CHALLENGE, where the
 * bank asks the buyer to authenticate (AUTHENTICATION_REQUIRED, `authenticationUrl` says where).
 * The fields payments acts on; a connector whose bank reports less (no kind or method in T-Bank's
 * GetState) still fills these.
 */
export type ProviderOutcome = Pick<
  ProviderSessionState,
  "sessionId" | "status" | "amountKopecks" | "capturedKopecks" | "holdExpiresAt" | "paidAt" | "reason" | "authenticationUrl" | "savedMethod"
> & { failure: ProviderFailure | null };

/**
 * What payments knows of a payment's money when it asks for a refund: what was taken, what its
 * ended refunds returned, what its refunds in progress (this one included) promise. A connector
 * whose bank cannot recognise a repeated refund compares these with the bank's figures before
 * sending it (docs/connectors.md, "T-Bank: refunds").
 */
export type RefundLedger = { paidKopecks: number; refundedKopecks: number; refundingKopecks: number };

export type SbpLinks = Extract<ProviderSession, { method: "SBP" }>;

/**
 * What payments needs from an acquirer. A real provider's adapter implements this; the HTTP one
 * speaks docs/acquirer-protocol.md to the acquirer emulator. Every method either answers or throws
 * ProviderError: `unavailable` (no answer in time, a lost answer, a 5xx: the outcome is unknown and
 * the same call is safe to repeat) or `rejected` (the provider said no, with a catalogue reason).
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
    /** The buyer agreed on our page to save the method: a card token, or an SBP binding if the payer consents in the bank app. */
    saveMethod?: boolean;
    /** Authorise and hold instead of taking the money (cards only: SBP is rejected with HOLD_NOT_FOR_SBP). */
    hold?: boolean;
    /** The shop's name, shown where the payer consents to a binding. */
    merchantName?: string | null;
  }): Promise<ProviderSession>;
  /** Makes a session unpayable (the buyer switched method); idempotent; `rejected` once it is paid or held. */
  cancelSession(sessionId: string): Promise<void>;
  /** Returns amountKopecks to the buyer; idempotent by refundId (a repeat returns the first answer). */
  refund(sessionId: string, amountKopecks: number, refundId: string, ledger: RefundLedger): Promise<ProviderRefund>;
  /** A session as it is now (after a lost answer, or to reconcile). */
  session(sessionId: string): Promise<ProviderOutcome>;
  /**
   * A merchant-initiated charge with a saved method, no buyer. Idempotent by chargeId (payments'
   * payment id): a repeat never charges twice and answers the charge as it is now.
   */
  charge(req: {
    chargeId: string;
    methodId: string;
    amountKopecks: number;
    description: string | null;
    /** Where the buyer returns after an authentication the bank asked for. */
    returnUrl: string;
    hold?: boolean;
    /** The authentication's deadline. */
    expiresAt?: number;
  }): Promise<ProviderOutcome>;
  /** A charge of the saved method by its own id; null when the provider has none (it was never committed: charging again is safe). */
  findCharge(chargeId: string, methodId: string): Promise<ProviderOutcome | null>;
  /** Captures all of a hold or part of it (the rest is released); idempotent. */
  capture(sessionId: string, amountKopecks?: number): Promise<ProviderOutcome>;
  /** Releases a hold; idempotent. */
  void(sessionId: string): Promise<ProviderOutcome>;
  /** An SBP binding without payment: a QR whose bank app asks the payer's consent; idempotent by bindingId. */
  createBinding(req: { bindingId: string; merchantName: string | null; description: string | null; returnUrl: string; expiresAt?: number }): Promise<SbpLinks>;
  /** A saved method as the provider has it (ACTIVE, EXPIRED or REVOKED); null when unknown. */
  savedMethod(methodId: string): Promise<ProviderSavedMethod | null>;
  /** Revokes a saved method at the provider: every later charge with it is declined; idempotent. */
  revokeMethod(methodId: string): Promise<ProviderSavedMethod>;
}

/**
 * `unavailable`: no answer, a timeout or a 5xx; the outcome is unknown and a retry is safe.
 * `rejected`: the provider answered and said no (4xx, or a reply that breaks the protocol).
 * `reason`: the catalogue's word for it (PROVIDER_UNAVAILABLE, the provider's own reason when it
 * names one of the catalogue, else PROVIDER_REFUSED).
 * `started`: for `unavailable`, whether anything may have begun at the provider. False only when
 * nothing can have: the connection was refused, the provider answered 5xx, or its circuit is open
 * (health.ts); only then may another connector take the session (connectors/connectors.ts).
 */
export class ProviderError extends Error {
  readonly started: boolean;

  constructor(
    readonly kind: "unavailable" | "rejected",
    message: string,
    readonly reason: Reason = kind === "unavailable" ? "PROVIDER_UNAVAILABLE" : "PROVIDER_REFUSED",
    readonly params: Record<string, unknown> = {},
    opts: { started?: boolean } = {},
  ) {
    super(message);
    this.started = kind === "rejected" || (opts.started ?? true);
  }
}

/** The provider could not be reached at all, or answered 5xx: nothing began there. */
export const notStarted = (message: string) => new ProviderError("unavailable", message, "PROVIDER_UNAVAILABLE", {}, { started: false });

/** Network errors raised before a request could reach the server (no connection was made). */
const NOT_CONNECTED = new Set(["ECONNREFUSED", "ConnectionRefused", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "FailedToOpenSocket"]);

/** A failed fetch as the port's error: refused before sending, or sent without an answer (a timeout, a closed connection). */
export function fetchFailure(e: unknown, who: string, timeoutMs: number): ProviderError {
  const err = e as Error & { code?: string };
  if (err.name === "TimeoutError") return new ProviderError("unavailable", `${who} unreachable: no answer within ${timeoutMs} ms`);
  if (err.code !== undefined && NOT_CONNECTED.has(err.code)) return notStarted(`${who} unreachable: ${err.code}`);
  return new ProviderError("unavailable", `${who} unreachable: ${err.message}`);
}
