import { FINAL_STATUSES, type FinalStatus, type PaymentMethod, type PaymentStatus } from "@payaccept/contracts";

/** What can happen to a payment after it is created (spec §3 plus the transitions it leaves to us). */
export type PaymentTrigger = "start" | "switch" | "cancel" | "expire" | "pay" | "payInTime" | "decline" | "refund";

/**
 * The whole state machine. `pay` from EXPIRED or FAILED is the late fast-payment QR payment of §3;
 * the spec names no late card payment, so a card's success is `payInTime`: only while PENDING.
 * `switch` is the buyer changing method before paying (the old provider session is canceled first).
 * A refund is only ever of a paid payment.
 */
export const TRANSITIONS: Record<PaymentTrigger, { from: readonly PaymentStatus[]; to: PaymentStatus }> = {
  start: { from: ["CREATED"], to: "PENDING" },
  switch: { from: ["PENDING"], to: "PENDING" },
  cancel: { from: ["CREATED"], to: "CANCELED" },
  expire: { from: ["CREATED", "PENDING"], to: "EXPIRED" },
  pay: { from: ["PENDING", "EXPIRED", "FAILED"], to: "SUCCESS" },
  payInTime: { from: ["PENDING"], to: "SUCCESS" },
  decline: { from: ["PENDING"], to: "FAILED" },
  refund: { from: ["SUCCESS"], to: "REFUNDED" },
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

/** The trigger of a provider's "paid": only an SBP QR may be paid after the deadline or a decline. */
export const paidTrigger = (method: PaymentMethod | null): PaymentTrigger => (method === "SBP" ? "pay" : "payInTime");

export function isFinal(status: PaymentStatus): status is FinalStatus {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}
