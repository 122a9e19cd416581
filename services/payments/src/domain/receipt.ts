import { customIssue, DomainError, itemAmountKopecks, validationFailed, type ValidationIssue, type ReceiptCustomer, type ReceiptData, type ReceiptRequest, type ShopReceiptSettings } from "@payaccept/contracts";

/**
 * The receipt payments stores and carries in its events: the merchant's request with the shop's
 * defaults (taxation system, VAT rate) filled in. The request's own shape and sum were checked
 * by the contract; what depends on the shop is checked here, every problem listed at once.
 */
export function resolveReceipt(req: ReceiptRequest | undefined, settings: ShopReceiptSettings | undefined): ReceiptData | null {
  if (!req) {
    if (settings?.required) throw validationFailed([customIssue("receipt", "RECEIPT_REQUIRED", "required: the shop issues a fiscal receipt for every payment")]);
    return null;
  }
  const problems: ValidationIssue[] = [];
  const taxation = req.taxation ?? settings?.taxation ?? null;
  if (taxation === null) problems.push(customIssue("receipt.taxation", "RECEIPT_TAXATION_REQUIRED", "required: the shop has no default taxation system"));
  const items = req.items.map((item, i) => {
    const vat = item.vat ?? settings?.vat ?? null;
    if (vat === null) problems.push(customIssue(`receipt.items.${i}.vat`, "RECEIPT_VAT_REQUIRED", "required: the shop has no default VAT rate"));
    return { ...item, vat: vat!, amountKopecks: itemAmountKopecks(item.priceKopecks, item.quantity) };
  });
  if (problems.length > 0) throw validationFailed(problems);
  return { customer: req.customer, taxation: taxation!, items };
}

/**
 * The receipt's address as the payment page shows it: enough for the buyer to recognise, not
 * enough to harvest from a leaked link (b•••@example.com, +7•••4567).
 */
export function maskedReceiptAddress(customer: ReceiptCustomer): string {
  if (customer.email) {
    const at = customer.email.lastIndexOf("@");
    return `${customer.email.slice(0, 1)}•••${customer.email.slice(at)}`;
  }
  const phone = customer.phone!;
  return `${phone.slice(0, 2)}•••${phone.slice(-4)}`;
}

/** What a receipt's lines add up to. */
export const receiptTotal = (r: ReceiptData): number => r.items.reduce((sum, item) => sum + item.amountKopecks, 0);

/**
 * The lines of a capture (docs/payments.md, "Two-stage payments"): the merchant's own for a
 * partial capture (required when the payment has a receipt: 54-FZ wants what was really sold),
 * with the payment's customer and taxation and the shop's VAT default; null keeps the create's
 * receipt (a whole capture without new lines, or a payment without a receipt). Every problem is
 * listed at once.
 */
export function captureReceipt(
  created: ReceiptData | null,
  heldKopecks: number,
  capturedKopecks: number,
  lines: { items: ReceiptRequest["items"] } | undefined,
  settings: ShopReceiptSettings | undefined,
): ReceiptData | null {
  if (!created) return null;
  if (!lines) {
    if (capturedKopecks < heldKopecks) throw new DomainError("CAPTURE_RECEIPT_REQUIRED");
    return null;
  }
  const receipt = resolveReceipt({ customer: created.customer, taxation: created.taxation, items: lines.items }, settings)!;
  if (receiptTotal(receipt) !== capturedKopecks) {
    throw validationFailed([customIssue("receipt.items", "RECEIPT_ITEMS_SUM", "the items (price × quantity, each rounded to a kopeck) must add up to the captured amount exactly")]);
  }
  return receipt;
}

/**
 * The sale receipt of a capture of `capturedKopecks`: the lines kept for it when they add up to
 * it, the create's when the whole hold was taken; null when neither does (the lines of a partial
 * capture committed by its callback were lost to a concurrent capture of another amount), as no
 * receipt is better than one for another amount.
 */
export function receiptOfCapture(created: ReceiptData | null, kept: ReceiptData | null, heldKopecks: number, capturedKopecks: number): ReceiptData | null {
  if (!created) return null;
  if (kept && receiptTotal(kept) === capturedKopecks) return kept;
  return capturedKopecks === heldKopecks ? created : null;
}
