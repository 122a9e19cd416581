import { expect, test } from "bun:test";
import { DomainError, ReceiptRequest } from "@payaccept/contracts";
import { maskedReceiptAddress, resolveReceipt } from "./receipt.ts";

const request = ReceiptRequest.parse({
  customer: { email: "buyer@example.com" },
  items: [
    { name: "A", quantity: 1.5, priceKopecks: 333 },
    { name: "B", quantity: 1, priceKopecks: 200, vat: "vat0" },
  ],
});

test("the shop's defaults fill what the receipt leaves out, and each line gets its amount", () => {
  expect(resolveReceipt(request, { required: false, taxation: "patent", vat: "vat22" })).toEqual({
    customer: { email: "buyer@example.com" },
    taxation: "patent",
    items: [
      { name: "A", quantity: 1.5, priceKopecks: 333, amountKopecks: 500, vat: "vat22", paymentSubject: "commodity", paymentMode: "full_payment", measure: "piece" },
      { name: "B", quantity: 1, priceKopecks: 200, amountKopecks: 200, vat: "vat0", paymentSubject: "commodity", paymentMode: "full_payment", measure: "piece" },
    ],
  });
});

test("without defaults every missing value is listed; a required receipt must be there", () => {
  const problems = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return (e as DomainError).messages;
    }
  };
  expect(problems(() => resolveReceipt(request, undefined))).toEqual([
    "receipt.taxation: required: the shop has no default taxation system",
    "receipt.items.0.vat: required: the shop has no default VAT rate",
  ]);
  expect(problems(() => resolveReceipt(undefined, { required: true, taxation: null, vat: null }))).toEqual(["receipt: required: the shop issues a fiscal receipt for every payment"]);
  expect(resolveReceipt(undefined, undefined)).toBeNull();
});

test("the payment page shows the receipt's address masked", () => {
  expect(maskedReceiptAddress({ email: "buyer@example.com" })).toBe("b•••@example.com");
  expect(maskedReceiptAddress({ phone: "+79001234567" })).toBe("+7•••4567");
});
