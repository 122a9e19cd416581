import { DomainError, type PaymentStatus } from "@payaccept/contracts";

/** The figures of a payment that decide what may still be refunded. */
export type RefundablePayment = {
  status: PaymentStatus;
  amountKopecks: number;
  commissionKopecks: number;
  refundedKopecks: number;
  refundingKopecks: number;
};

/** What is neither refunded nor promised to a refund in progress. */
export const refundableKopecks = (p: RefundablePayment) => p.amountKopecks - p.refundedKopecks - p.refundingKopecks;

/**
 * The amount of a new refund: the request's, or everything left when it names none. CONFLICT, with
 * what the merchant can do about it, when the payment is not SUCCESS or the amount is above what is
 * left: both depend on the payment's state, not on the request's shape (which the gateway checks).
 */
export function refundAmount(p: RefundablePayment, requested: number | undefined): number {
  if (p.status === "REFUNDED") throw new DomainError("REFUND_ALREADY_FULL");
  if (p.status !== "SUCCESS") throw new DomainError("REFUND_NOT_SUCCESS", { status: p.status });
  const left = refundableKopecks(p);
  if (left <= 0) throw new DomainError("REFUND_NOTHING_LEFT", { refundedKopecks: p.refundedKopecks, refundingKopecks: p.refundingKopecks });
  const amount = requested ?? left;
  if (amount > left) {
    throw new DomainError("REFUND_EXCEEDS_REFUNDABLE", {
      refundKopecks: amount,
      refundableKopecks: left,
      paymentKopecks: p.amountKopecks,
      refundingKopecks: p.refundingKopecks,
    });
  }
  return amount;
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
