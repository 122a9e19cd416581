import { commissionFor } from "../domain/commission.ts";
import { receiptOfCapture } from "../domain/receipt.ts";
import type { PaymentRow } from "../store/payments-store.ts";
import { shopOf, type PaymentsDeps } from "./deps.ts";

/**
 * What a hold's capture sets on the payment, whoever commits it (the capture's request, or the
 * acquirer's CAPTURED callback after a lost answer or a crash): the captured amount as the
 * payment's amount, its commission by the tariff of the capture's moment, the capture as paidAt,
 * and the sale receipt of what was captured.
 */
export async function capturedFields(d: PaymentsDeps, row: PaymentRow, capturedKopecks: number, paidAt: number): Promise<Partial<PaymentRow>> {
  const shop = await shopOf(d, row);
  const held = row.heldKopecks ?? row.amountKopecks;
  const receipt = receiptOfCapture(row.receipt, row.captureReceipt, held, capturedKopecks);
  if (row.receipt && !receipt) d.log.error({ paymentId: row.id, capturedKopecks }, "a partial capture's receipt lines were not kept for its amount; no sale receipt");
  return {
    amountKopecks: capturedKopecks,
    commissionKopecks: commissionFor(capturedKopecks, shop.tariff[row.method ?? "CARD"]),
    paidAt,
    receipt,
    captureReceipt: null,
  };
}
