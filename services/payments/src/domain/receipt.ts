import { customIssue, itemAmountKopecks, validationFailed, type ValidationIssue, type ReceiptCustomer, type ReceiptData, type ReceiptRequest, type ShopReceiptSettings } from "@payaccept/contracts";

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
