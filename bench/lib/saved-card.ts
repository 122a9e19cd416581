import { Payment, rpcs } from "@payaccept/contracts";
import { eventually, type Stack } from "../../tests/harness/stack.ts";
import { BankApp } from "../../tests/payments-fixtures.ts";

/**
 * A card saved on the shop the way a buyer saves one (a payment with savePaymentMethod, paid on
 * the acquirer emulator's card form with consent), for the charge row: its saved method's id.
 */
export async function saveBenchCard(stack: Stack, apiKey: string): Promise<string> {
  const res = await stack.api(apiKey, "/v1/payments", { method: "POST", json: { orderId: `bench-card-${Date.now()}`, amountKopecks: 10_000, savePaymentMethod: true } });
  if (res.status !== 201) throw new Error(`saving a card: create answered ${res.status}`);
  const { id } = Payment.parse(await res.json());
  const view = await stack.call(rpcs.payments.start, { id, method: "CARD", saveMethod: true });
  const paid = await new BankApp(stack).card(view.card!.formAction, "4111 1111 1111 1111");
  if (paid.status !== 303) throw new Error(`saving a card: the card form answered ${paid.status}`);
  const payment = await eventually(async () => Payment.parse(await (await stack.api(apiKey, `/v1/payments/${id}`)).json()).paymentMethod, 30_000);
  return payment.id;
}
