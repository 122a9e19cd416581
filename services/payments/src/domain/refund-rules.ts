import { DomainError } from "@payaccept/contracts";
import { decideRefund, refundableKopecks, type RefundState } from "./state-machine.ts";

/** The figures of a payment that decide what may still be refunded, and how much of the balance each refund takes. */
export type RefundablePayment = RefundState & { commissionKopecks: number };


/**
 * The amount of a new refund as the state machine decides it (decideRefund). CONFLICT, with what
 * the merchant can do about it, when it refuses: that depends on the payment's state, not on the
 * request's shape (which the gateway checks).
 */
export function refundAmount(p: RefundablePayment, requested: number | undefined): number {
  const d = decideRefund(p, requested);
  if (d.kind === "refund") return d.amountKopecks;
  if (d.why === "notPaid") {
    if (d.status === "REFUNDED") throw new DomainError("REFUND_ALREADY_FULL");
    throw new DomainError("REFUND_NOT_SUCCESS", { status: d.status });
  }
  if (d.why === "nothingLeft") throw new DomainError("REFUND_NOTHING_LEFT", { refundedKopecks: p.refundedKopecks, refundingKopecks: p.refundingKopecks });
  throw new DomainError("REFUND_EXCEEDS_REFUNDABLE", {
    refundKopecks: d.amountKopecks,
    refundableKopecks: d.leftKopecks,
    paymentKopecks: p.amountKopecks,
    refundingKopecks: p.refundingKopecks,
  });
}

/**
 * What a refund takes from the merchant's balance: its share of the payment's net receipt
 * (amount − commission), so the commission goes back to the merchant in proportion to what is
 * refunded (docs/balance.md). Shares round down; the refund that brings the payment to its full
 * amount takes whatever of the net is left, so the refunds of a fully refunded payment take exactly
 * its net receipt. `takenByOthers`: the shares of the payment's refunds that have not FAILED.
 * BigInt: amount × net can pass 2^53.
 */
export function balanceShare(p: RefundablePayment, amountKopecks: number, takenByOthers: number): number {
  const net = Math.max(0, p.amountKopecks - p.commissionKopecks);
  const left = Math.max(0, net - takenByOthers);
  const completes = amountKopecks === refundableKopecks(p);
  if (completes) return left;
  return Math.min(left, Number((BigInt(amountKopecks) * BigInt(net)) / BigInt(p.amountKopecks)));
}
