import { expect } from "bun:test";
import { DEV_ACQUIRER_API_KEY, ErrorBody, Payment, rpcs, SavedPaymentMethod, WebhookBody, type CreatePaymentInput, type PaymentMethod } from "@payaccept/contracts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { eventually, type Stack } from "./harness/stack.ts";
import { BankApp, newOrderId } from "./payments-fixtures.ts";

/**
 * Shared by the tests of saved methods, charges and holds (tests/payments-saved-methods,
 * -charges-recovery, -holds, -hold-deadline, -sandbox-outcome): a live shop with a webhook
 * receiver, the merchant's API calls, and the buyer's steps on the acquirer emulator's pages.
 */

export type LiveShop = { shopId: string; accountId: string; apiKey: string; receiver: Receiver };

export async function shopWithReceiver(stack: Stack, opts: { sandbox?: boolean; methods?: PaymentMethod[] } = {}): Promise<LiveShop> {
  const receiver = startReceiver();
  const shop = await stack.createShop({ name: "Чайный клуб", sandbox: opts.sandbox ?? false, webhookUrl: receiver.url, methods: opts.methods });
  return { shopId: shop.shopId, accountId: shop.accountId, apiKey: shop.apiKey, receiver };
}

/** A merchant API call: its status and JSON body. */
export async function api(stack: Stack, shop: LiveShop, path: string, init: RequestInit & { json?: unknown } = {}): Promise<{ status: number; body: unknown }> {
  const res = await stack.api(shop.apiKey, path, init);
  return { status: res.status, body: await res.json() };
}

/** POST /v1/payments answered 201: the Payment. */
export async function create(stack: Stack, shop: LiveShop, request: Partial<CreatePaymentInput>, headers: Record<string, string> = {}): Promise<Payment> {
  const res = await api(stack, shop, "/v1/payments", { method: "POST", json: { orderId: newOrderId(), amountKopecks: 150000, ...request }, headers });
  expect(res.status).toBe(201);
  return Payment.parse(res.body);
}

/** The refusal of an API call: its status and code. */
export async function refusal(res: Promise<{ status: number; body: unknown }>): Promise<{ status: number; code: string }> {
  const { status, body } = await res;
  return { status, code: ErrorBody.parse(body).code };
}

export const getPayment = async (stack: Stack, shop: LiveShop, id: string) => Payment.parse((await api(stack, shop, `/v1/payments/${id}`)).body);
export const statusIs = (stack: Stack, shop: LiveShop, id: string, status: string) => eventually(async () => ((await getPayment(stack, shop, id)).status === status ? getPayment(stack, shop, id) : false), 30_000);
/**
 * A charge's outcome: 201, then the payment once it has left PENDING. The create answers the
 * acquirer's decision when it came in time (a copy of the call, hedged while the first waits for
 * the acquirer, waits for it too), else PENDING, so a test waits for the outcome as a merchant's
 * webhook would bring it.
 */
export async function outcomeOf(stack: Stack, shop: LiveShop, res: { status: number; body: unknown }): Promise<Payment> {
  expect(res).toMatchObject({ status: 201, body: { merchantInitiated: true } });
  const { id } = Payment.parse(res.body);
  return eventually(async () => {
    const p = await getPayment(stack, shop, id);
    return p.status !== "PENDING" && p;
  }, 30_000);
}

export const getMethod = async (stack: Stack, shop: LiveShop, id: string) => SavedPaymentMethod.parse((await api(stack, shop, `/v1/payment-methods/${id}`)).body);

/** The webhooks the shop received, parsed, deduplicated by (id, status) as a receiver must. */
export function webhooks(shop: LiveShop): WebhookBody[] {
  const seen = new Map<string, WebhookBody>();
  for (const r of shop.receiver.requests) {
    const body = WebhookBody.parse(JSON.parse(r.body));
    seen.set(`${body.id}:${body.status}`, body);
  }
  return [...seen.values()];
}
export const webhookOf = (shop: LiveShop, id: string, status: string) =>
  eventually(() => webhooks(shop).find((w) => w.id === id && w.status === status), 30_000);
/** How many requests carried (id, status): retries aside, one delivery each. */
export const webhookStatuses = (shop: LiveShop, id: string) => webhooks(shop).filter((w) => w.id === id).map((w) => w.status);
/**
 * The payment's webhooks are exactly these statuses, each awaited: deliveries run concurrently and
 * with retries, so a later status (CANCELED) may arrive before an earlier one (AUTHORIZED).
 */
export async function webhooksAre(shop: LiveShop, id: string, statuses: string[]): Promise<void> {
  for (const status of statuses) await webhookOf(shop, id, status);
  expect(webhookStatuses(shop, id).sort()).toEqual([...statuses].sort());
}

/** The buyer pays a live payment on its page: starts it (with their consent to save, if asked) and pays in the acquirer's pages. */
export async function buyerPays(stack: Stack, id: string, how: { method: "CARD"; pan?: string; save?: boolean } | { method: "SBP"; decision: "pay" | "pay_and_bind" | "pay_without_binding"; save?: boolean }): Promise<void> {
  const view = await stack.call(rpcs.payments.start, { id, method: how.method, saveMethod: how.save });
  const bank = new BankApp(stack);
  if (how.method === "CARD") {
    const res = await bank.card(view.card!.formAction, how.pan ?? "4111 1111 1111 1111");
    expect(res.status).toBe(303);
  } else {
    await bank.sbp(view.sbp!.qrPayload, how.decision as "pay");
  }
}

/** The acquirer emulator's own API, as the tests read its side of a charge or a hold. */
export function acquirer(stack: Stack, path: string, json?: unknown): Promise<Response> {
  return fetch(`${stack.url("acquirer-emulator")}${path}`, {
    method: json === undefined ? "GET" : "POST",
    headers: { Authorization: `Bearer ${DEV_ACQUIRER_API_KEY}`, ...(json === undefined ? {} : { "Content-Type": "application/json" }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
}

/** A live card saved by a payment the buyer made with it (and agreed to save): the paid payment and its method's id. */
export async function savedCard(stack: Stack, shop: LiveShop, opts: { pan?: string; customerId?: string } = {}): Promise<{ payment: Payment; methodId: string }> {
  const p = await create(stack, shop, { savePaymentMethod: true, customerId: opts.customerId ?? "customer-1" });
  await buyerPays(stack, p.id, { method: "CARD", pan: opts.pan, save: true });
  const paid = await statusIs(stack, shop, p.id, "SUCCESS");
  expect(paid.paymentMethod?.method).toBe("CARD");
  return { payment: paid, methodId: paid.paymentMethod!.id };
}
