import { jetstreamManager } from "@nats-io/jetstream";
import {
  DomainError,
  PAYMENT_EVENTS_SUBJECT_PREFIX,
  PAYMENTS_STREAM,
  PaymentEvent,
  REFUND_EVENTS_SUBJECT_PREFIX,
  RefundEvent,
  rpcs,
  type CreatePaymentInput,
  type Payment,
  type PaymentMethod,
  type RpcRequest,
  type Tariff,
} from "@payaccept/contracts";
import type { Stack } from "./harness/stack.ts";

/** Shared by the tests/payments-*.test.ts files: shops through the real directory owner, and the stream as consumers see it. */

export type TestShop = { shopId: string; accountId: string; apiKey: string };

/** A shop created by the directory service, then given the methods and tariff the test needs. */
export async function createShop(
  stack: Stack,
  opts: { sandbox?: boolean; methods?: PaymentMethod[]; tariff?: Tariff; successUrl?: string; failUrl?: string; name?: string } = {},
): Promise<TestShop> {
  const created = await stack.createShop({ name: opts.name ?? "Coffee beans", sandbox: opts.sandbox ?? true, methods: opts.methods });
  if (opts.tariff || opts.successUrl || opts.failUrl) {
    await stack.call(rpcs.directory.updateShop, { shopId: created.shopId, tariff: opts.tariff, successUrl: opts.successUrl, failUrl: opts.failUrl });
  }
  return { shopId: created.shopId, accountId: created.accountId, apiKey: created.apiKey };
}

let orders = 0;
export const newOrderId = () => `order-${Date.now()}-${++orders}`;

export function createPayment(stack: Stack, shopId: string, request: Partial<CreatePaymentInput> = {}): Promise<Payment> {
  return stack.call(rpcs.payments.create, { shopId, request: { orderId: newOrderId(), amountKopecks: 150000, ...request } });
}

/** A sandbox payment the buyer has paid (CREATED → PENDING → SUCCESS through the payment page's RPCs). */
export async function paidSandbox(stack: Stack, shopId: string, request: Partial<CreatePaymentInput> = {}): Promise<Payment> {
  const p = await createPayment(stack, shopId, request);
  await stack.call(rpcs.payments.start, { id: p.id, method: "SBP" });
  return (await stack.call(rpcs.payments.sandboxOutcome, { id: p.id, outcome: "SUCCESS" })).payment;
}

export function listPage(stack: Stack, shopId: string, query: RpcRequest<typeof rpcs.payments.list>["query"]) {
  return stack.call(rpcs.payments.list, { shopId, query });
}

/** The DomainError a call fails with (code and message), or a failure when it succeeds. */
export async function failure(p: Promise<unknown>): Promise<{ code: string; message: string | string[] }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DomainError) return { code: e.code, message: e.messages };
    throw e;
  }
  throw new Error("expected the call to fail");
}

export type StoredEvent = { event: PaymentEvent; subject: string; msgId: string | undefined; traceparent: string | undefined };

/** The messages of the PAYMENTS stream under a subject prefix, in stream order, with their subject, Nats-Msg-Id and traceparent. */
async function storedUnder<T>(stack: Stack, prefix: string, parse: (v: unknown) => T): Promise<{ event: T; subject: string; msgId: string | undefined; traceparent: string | undefined }[]> {
  const jsm = await jetstreamManager(stack.nc);
  const { state } = await jsm.streams.info(PAYMENTS_STREAM);
  const out: { event: T; subject: string; msgId: string | undefined; traceparent: string | undefined }[] = [];
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(PAYMENTS_STREAM, { seq }).catch(() => null);
    if (!m || !m.subject.startsWith(`${prefix}.`)) continue;
    out.push({ event: parse(m.json()), subject: m.subject, msgId: m.header?.get("Nats-Msg-Id"), traceparent: m.header?.get("traceparent") || undefined });
  }
  return out;
}

/** Every payment event in the PAYMENTS stream (refund events left out). */
export const streamEvents = (stack: Stack): Promise<StoredEvent[]> => storedUnder(stack, PAYMENT_EVENTS_SUBJECT_PREFIX, (v) => PaymentEvent.parse(v));

/** Every refund event of a payment in the PAYMENTS stream. */
export async function refundEventsOf(stack: Stack, paymentId: string) {
  return (await storedUnder(stack, REFUND_EVENTS_SUBJECT_PREFIX, (v) => RefundEvent.parse(v))).filter((e) => e.event.paymentId === paymentId);
}

export async function eventsOf(stack: Stack, paymentId: string): Promise<StoredEvent[]> {
  return (await streamEvents(stack)).filter((e) => e.event.paymentId === paymentId);
}

/** The acquirer emulator's buyer pages, reached the way a browser would, on the test's loopback address. */
export class BankApp {
  constructor(private readonly stack: Stack) {}

  private get publicOrigin(): string {
    return new URL(this.stack.env.ACQUIRER_PUBLIC_URL!).origin;
  }

  /** A URL the emulator handed out (QR payload, form action), rewritten to where the test reaches it. */
  local(publicUrl: string): string {
    return `${this.stack.url("acquirer-emulator")}${new URL(publicUrl).pathname}`;
  }

  /** Presses Pay or Decline in the SBP "bank app" behind the QR payload. */
  async sbp(qrPayload: string, decision: "pay" | "decline"): Promise<void> {
    const page = this.local(qrPayload);
    const html = await (await fetch(page)).text();
    const token = /name="token" value="([0-9a-f]{64})"/.exec(html)?.[1];
    if (!token) throw new Error(`no form on the bank page ${page}`);
    const res = await fetch(page, {
      method: "POST",
      body: new URLSearchParams({ token, decision }),
      headers: { Origin: this.publicOrigin },
      redirect: "manual",
    });
    if (res.status !== 303) throw new Error(`bank page answered ${res.status}`);
  }

  /** Submits the payment page's card form straight to the acquirer, as the buyer's browser does. */
  async card(formAction: string, pan: string): Promise<Response> {
    return fetch(this.local(formAction), {
      method: "POST",
      body: new URLSearchParams({ pan, exp: "12/99", cvc: "123", holder: "IVAN PETROV" }),
      headers: { Origin: new URL(this.stack.env.PUBLIC_PAYPAGE_URL!).origin },
      redirect: "manual",
    });
  }
}
