import type { Payment } from "@payaccept/contracts";

/**
 * What the payment page says next to a payment's commission, by what became of the payment: the
 * figure alone read as charged on a payment never paid or made in the sandbox, and as kept on one
 * refunded, though the platform keeps none on money it returned (docs/balance.md, "What a refund
 * takes"). `charged`: the figure is what was kept, nothing to add.
 */
export type CommissionState = "notCharged" | "sandbox" | "ifPaid" | "returned" | "partlyReturned" | "charged";

export function commissionState(p: Pick<Payment, "status" | "isTest" | "refundedKopecks">): CommissionState {
  if (p.status === "FAILED" || p.status === "EXPIRED" || p.status === "CANCELED") return "notCharged";
  // A sandbox payment moves no money (docs/balance.md): no commission either.
  if (p.isTest) return "sandbox";
  if (p.status === "CREATED" || p.status === "PENDING") return "ifPaid";
  if (p.status === "REFUNDED") return "returned";
  return p.refundedKopecks > 0 ? "partlyReturned" : "charged";
}
