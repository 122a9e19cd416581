import { CashRegisterSandbox, DEV_CASH_REGISTER_API_KEY, rpcs, type CreatePaymentInput, type Payment, type Receipt } from "@payaccept/contracts";
import { eventually, type Stack } from "./harness/stack.ts";
import { newOrderId } from "./payments-fixtures.ts";

/** Shared by tests/receipts*.test.ts. */

/** 2 × 333.00 + 1.5 × 100.00 (= 150.00) + 1 × 0.01: 816.01 RUB. */
export const RECEIPT_AMOUNT = 81_601;
export const receiptRequest = (customer: { email?: string; phone?: string } = { email: "buyer@example.com" }) => ({
  customer,
  taxation: "usn_income" as const,
  items: [
    { name: "Кофе в зёрнах, 1 кг", quantity: 2, priceKopecks: 33_300, vat: "vat22" as const },
    { name: "Сироп, л", quantity: 1.5, priceKopecks: 10_000, vat: "vat122" as const, paymentMode: "full_prepayment" as const },
    { name: "Пакет", quantity: 1, priceKopecks: 1, vat: "none" as const, paymentSubject: "another" as const },
  ],
});

export function createWithReceipt(stack: Stack, shopId: string, request: Partial<CreatePaymentInput> = {}): Promise<Payment> {
  return stack.call(rpcs.payments.create, { shopId, request: { orderId: newOrderId(), amountKopecks: RECEIPT_AMOUNT, receipt: receiptRequest(), ...request } });
}

/** A sandbox payment paid with the payment page's sandbox button. */
export async function paySandbox(stack: Stack, payment: Payment): Promise<void> {
  await stack.call(rpcs.payments.start, { id: payment.id, method: "SBP" });
  await stack.call(rpcs.payments.sandboxOutcome, { id: payment.id, outcome: "SUCCESS" });
}

export const receiptsOf = async (stack: Stack, shopId: string, paymentId: string): Promise<Receipt[]> =>
  (await stack.call(rpcs.receipts.list, { shopId, paymentIds: [paymentId] })).items;

/** Waits until the payment has `count` receipts and every one is REGISTERED. */
export const registered = (stack: Stack, shopId: string, paymentId: string, count = 1) =>
  eventually(async () => {
    const items = await receiptsOf(stack, shopId, paymentId);
    return items.length === count && items.every((r) => r.status === "REGISTERED") ? items : null;
  }, 60_000);

/** The cash register emulator's sandbox switch. */
export async function setRegister(stack: Stack, state: CashRegisterSandbox): Promise<void> {
  const res = await fetch(`${stack.url("cash-register-emulator")}/v1/sandbox`, {
    method: "POST",
    headers: { Authorization: `Bearer ${DEV_CASH_REGISTER_API_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify(state),
  });
  if (res.status !== 200) throw new Error(`sandbox switch answered ${res.status}`);
}
