import { Payment, rpcs, type CreatePaymentInput, type PaymentMethod, type PaymentStatus } from "@payaccept/contracts";
import type { Stack } from "../harness/stack.ts";

/** Creates a payment through the merchant API, as a shop would. */
export async function createPayment(stack: Stack, apiKey: string, body: Partial<CreatePaymentInput> = {}): Promise<Payment> {
  const res = await stack.api(apiKey, "/v1/payments", {
    method: "POST",
    json: { orderId: `order-${crypto.randomUUID()}`, amountKopecks: 123456, description: "Зёрна кофе, 1 кг", ...body },
  });
  if (res.status !== 201) throw new Error(`payment not created: ${res.status} ${await res.text()}`);
  return Payment.parse(await res.json());
}

/** The payment's status as the merchant API reports it. */
export async function statusOf(stack: Stack, apiKey: string, id: string): Promise<PaymentStatus> {
  const res = await stack.api(apiKey, `/v1/payments/${id}`);
  return Payment.parse(await res.json()).status;
}

export async function cancelPayment(stack: Stack, apiKey: string, id: string): Promise<void> {
  const res = await stack.api(apiKey, `/v1/payments/${id}/cancel`, { method: "POST" });
  if (res.status !== 200) throw new Error(`payment not canceled: ${res.status} ${await res.text()}`);
}

/** A sandbox payment the buyer paid with `method`, or was declined (CREATED → PENDING → outcome). */
export async function paidInSandbox(
  stack: Stack,
  apiKey: string,
  payment: { orderId: string; amountKopecks: number },
  method: PaymentMethod,
  outcome: "SUCCESS" | "FAILED" = "SUCCESS",
): Promise<Payment> {
  const created = await createPayment(stack, apiKey, { ...payment, description: `Заказ ${payment.orderId}` });
  await stack.call(rpcs.payments.start, { id: created.id, method });
  await stack.call(rpcs.payments.sandboxOutcome, { id: created.id, outcome });
  return created;
}
