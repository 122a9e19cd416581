import {
  FINAL_STATUSES,
  type FinalStatus,
  type PaymentEventStatus,
  type PaymentMethod,
  type PaymentStatus,
  type Reason,
  type RefundStatus,
  type SavedMethodStatus,
} from "@payaccept/contracts";

/**
 * The one place that decides what may happen to a payment and its refunds: transitions, the
 * buyer's start or switch of method, late payments, refunds and their amounts. The application and
 * the store ask it; none of them compares statuses by hand.
 */

/** What can happen to a payment after it is created (spec §3 plus the transitions it leaves to us). */
export type PaymentTrigger =
  | "start"
  | "switch"
  | "cancel"
  | "expire"
  | "pay"
  | "payInTime"
  | "decline"
  | "refund"
  | "authorize"
  | "capture"
  | "void"
  | "expireHold"
  | "authenticate"
  | "authenticateHold"
  | "failAuthentication";

/** Ended unpaid, yet still payable late by an SBP QR (spec §3: money received is a success). */
const LATE_PAYABLE = ["EXPIRED", "FAILED"] as const satisfies readonly PaymentStatus[];

/**
 * The whole state machine. `pay` from EXPIRED or FAILED is the late fast-payment QR payment of §3;
 * the spec names no late card payment, so a card's success is `payInTime`: only while PENDING.
 * `switch` is the buyer changing method before paying (the old provider session is canceled first).
 * A refund is only ever of a paid payment; `refund` is the refund that completes its full amount.
 */
export const TRANSITIONS: Record<PaymentTrigger, { from: readonly PaymentStatus[]; to: PaymentStatus }> = {
  start: { from: ["CREATED"], to: "PENDING" },
  switch: { from: ["PENDING"], to: "PENDING" },
  cancel: { from: ["CREATED"], to: "CANCELED" },
  expire: { from: ["CREATED", "PENDING"], to: "EXPIRED" },
  pay: { from: ["PENDING", ...LATE_PAYABLE], to: "SUCCESS" },
  payInTime: { from: ["PENDING"], to: "SUCCESS" },
  decline: { from: ["PENDING"], to: "FAILED" },
  refund: { from: ["SUCCESS"], to: "REFUNDED" },
  // Two stages (docs/payments.md, "Two-stage payments"): the buyer's card held, then captured,
  // voided by the merchant, or released at the capture deadline.
  authorize: { from: ["PENDING"], to: "AUTHORIZED" },
  capture: { from: ["AUTHORIZED"], to: "SUCCESS" },
  void: { from: ["AUTHORIZED"], to: "CANCELED" },
  expireHold: { from: ["AUTHORIZED"], to: "EXPIRED" },
  // A merchant-initiated charge that FAILED because the bank asked the buyer to confirm it, and the
  // buyer did on payUrl (awaitsAuthentication guards it): paid, or held for a held charge.
  authenticate: { from: ["FAILED"], to: "SUCCESS" },
  authenticateHold: { from: ["FAILED"], to: "AUTHORIZED" },
  // The buyer failed the bank's check: the charge stays FAILED, now for that reason, and its page
  // stops offering the check. No second FAILED event: a move to the same status announces nothing.
  failAuthentication: { from: ["FAILED"], to: "FAILED" },
};

export type TransitionDecision =
  | { kind: "move"; from: PaymentStatus; to: PaymentStatus }
  /** The payment is already where the trigger leads: a repeat, answered without a second event. */
  | { kind: "already"; status: PaymentStatus }
  | { kind: "refused"; status: PaymentStatus };

export function decide(current: PaymentStatus, trigger: PaymentTrigger): TransitionDecision {
  const t = TRANSITIONS[trigger];
  if (t.from.includes(current)) return { kind: "move", from: current, to: t.to };
  if (current === t.to) return { kind: "already", status: current };
  return { kind: "refused", status: current };
}

/** A merchant-initiated charge that failed only because the bank asked the buyer to confirm it: the buyer may still do so. */
export const awaitsAuthentication = (p: { status: PaymentStatus; failureCode: Reason | null }): boolean =>
  p.status === "FAILED" && p.failureCode === "AUTHENTICATION_REQUIRED";

/** The fields of a payment that decide what the provider's results do to it. */
export type Settled = { status: PaymentStatus; method: PaymentMethod | null; failureCode: Reason | null; expiresAt: number | null };

/**
 * The trigger of a provider's "paid": a held payment's capture; a charge's completed
 * authentication; an SBP QR, which may be paid after the deadline or a decline; else a payment
 * paid in time.
 */
export function paidTrigger(p: Settled): PaymentTrigger {
  if (p.status === "AUTHORIZED") return "capture";
  if (awaitsAuthentication(p)) return "authenticate";
  return p.method === "SBP" ? "pay" : "payInTime";
}

/** The trigger of a provider's "held": a charge's completed authentication, or the buyer's hold. */
export const authorizedTrigger = (p: Settled): PaymentTrigger => (awaitsAuthentication(p) ? "authenticateHold" : "authorize");

/**
 * The trigger of a released hold: the merchant's void before the capture deadline, the deadline's
 * expiry from it on (whoever asked the acquirer: a cancel after the deadline is the deadline's).
 */
export const releaseTrigger = (p: Settled, now: number, heldTooLong = false): PaymentTrigger =>
  heldTooLong || (p.expiresAt !== null && p.expiresAt <= now) ? "expireHold" : "void";

/** A two-stage payment past its capture deadline: nothing but its release applies to it any more. */
export const holdLapsed = (p: Settled, now: number): boolean => p.status === "AUTHORIZED" && p.expiresAt !== null && p.expiresAt <= now;

/**
 * A "paid" the machine refused although the buyer's money was taken: a card paid once its payment
 * had expired or been declined (no late success for a card). The money goes back to the buyer.
 */
export const paidTooLate = (trigger: PaymentTrigger, status: PaymentStatus): boolean =>
  trigger === "payInTime" && (LATE_PAYABLE as readonly PaymentStatus[]).includes(status);

export function isFinal(status: PaymentStatus): status is FinalStatus {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

/**
 * Whether reaching the status is announced (an event in the outbox, a webhook): every final status,
 * and AUTHORIZED, which tells the merchant the buyer paid the hold.
 */
export function notifies(status: PaymentStatus): status is PaymentEventStatus & PaymentStatus {
  return isFinal(status) || status === "AUTHORIZED";
}

/** A move announces its new status when that status is announced and is new (a FAILED charge staying FAILED is not). */
export const announces = (d: { from: PaymentStatus; to: PaymentStatus }): boolean => d.from !== d.to && notifies(d.to);

/** A saved method is chargeable while ACTIVE; its end (EXPIRED, REVOKED) is for good. */
export const methodChargeable = (status: SavedMethodStatus): boolean => status === "ACTIVE";

/** The fields of a payment that decide how the buyer may pay it. */
export type Payable = { status: PaymentStatus; method: PaymentMethod | null; methodFixed: boolean; expiresAt: number | null };

/**
 * Whether the buyer must pay with the payment's method: the merchant fixed it, or it was named at
 * creation and the buyer has not started yet (also rows written before `methodFixed` existed).
 */
export const methodIsFixed = (p: Payable): boolean => p.methodFixed || (p.method !== null && p.status === "CREATED");

export type StartDecision =
  /** PENDING with this method already: the buyer reloading the page gets the payment as it is. */
  | { kind: "current" }
  | { kind: "move"; trigger: "start" | "switch" }
  | { kind: "refused"; why: "notPayable"; status: PaymentStatus }
  | { kind: "refused"; why: "expired" }
  | { kind: "refused"; why: "methodFixed"; method: PaymentMethod };

/**
 * The buyer picks `method`: CREATED starts, PENDING switches (unless the method is fixed), anything
 * else cannot be paid; past the deadline nothing starts even before the expiry timer has run.
 */
export function decideStart(p: Payable, method: PaymentMethod, now: number): StartDecision {
  if (p.status === "PENDING" && p.method === method) return { kind: "current" };
  const trigger = TRANSITIONS.start.from.includes(p.status) ? "start" : TRANSITIONS.switch.from.includes(p.status) ? "switch" : undefined;
  if (!trigger) return { kind: "refused", why: "notPayable", status: p.status };
  if (p.expiresAt !== null && p.expiresAt <= now) return { kind: "refused", why: "expired" };
  if (p.method && p.method !== method && methodIsFixed(p)) return { kind: "refused", why: "methodFixed", method: p.method };
  return { kind: "move", trigger };
}

/** The figures of a payment that decide what may still be refunded. */
export type RefundState = {
  status: PaymentStatus;
  amountKopecks: number;
  refundedKopecks: number;
  refundingKopecks: number;
};

/** What is neither refunded nor promised to a refund in progress. */
export const refundableKopecks = (p: RefundState) => p.amountKopecks - p.refundedKopecks - p.refundingKopecks;

export type RefundDecision =
  | { kind: "refund"; amountKopecks: number }
  | { kind: "refused"; why: "notPaid"; status: PaymentStatus }
  | { kind: "refused"; why: "nothingLeft" }
  | { kind: "refused"; why: "exceeds"; amountKopecks: number; leftKopecks: number };

/**
 * A new refund of `requested` kopecks, or of everything left when it names none: only a paid
 * (SUCCESS) payment, and never more than is neither refunded nor being refunded.
 */
export function decideRefund(p: RefundState, requested: number | undefined): RefundDecision {
  if (!TRANSITIONS.refund.from.includes(p.status)) return { kind: "refused", why: "notPaid", status: p.status };
  const left = refundableKopecks(p);
  if (left <= 0) return { kind: "refused", why: "nothingLeft" };
  const amountKopecks = requested ?? left;
  if (amountKopecks > left) return { kind: "refused", why: "exceeds", amountKopecks, leftKopecks: left };
  return { kind: "refund", amountKopecks };
}

/** The payment's refunds have returned its whole amount: its `refund` transition (SUCCESS → REFUNDED) is due. */
export const fullyRefunded = (p: { amountKopecks: number; refundedKopecks: number }): boolean => p.refundedKopecks === p.amountKopecks;

/** A refund is PENDING until it ends SUCCEEDED or FAILED, once; an ended refund never changes. */
export const refundHasEnded = (status: RefundStatus): boolean => status !== "PENDING";
