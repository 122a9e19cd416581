import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Balance, Payment, rpcs } from "@payaccept/contracts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { eventually, Stack } from "./harness/stack.ts";
import { receiptsOf, registered } from "./receipts-fixtures.ts";
import { acquirer, api, buyerPays, create, getPayment, outcomeOf, refusal, savedCard, shopWithReceiver, statusIs, webhookOf, webhooksAre, type LiveShop } from "./recurring-fixtures.ts";

/**
 * Two-stage card payments end to end (issue 18): the buyer's card held (AUTHORIZED), then
 * captured whole or in part, or voided by the merchant's cancel; the money and the receipt follow
 * the capture, never the hold; capture and void racing end in exactly one of them, the acquirer
 * agreeing; a capture whose answer is lost still ends SUCCESS once. Both engines. The deadline
 * is tests/payments-hold-deadline.test.ts (a short CAPTURE_TTL).
 */
setDefaultTimeout(120_000);

const HELD = 250_000;
/** The create's receipt: 2 × 1000.00 + 500.00 = 2500.00 RUB. */
const receipt = {
  customer: { email: "buyer@example.com" },
  taxation: "usn_income" as const,
  items: [
    { name: "Сыр, кг (по весу)", quantity: 2, priceKopecks: 100_000, vat: "vat22" as const },
    { name: "Доставка", quantity: 1, priceKopecks: 50_000, vat: "none" as const, paymentSubject: "service" as const },
  ],
};
/** What was packed: 1.3 kg of it and the delivery, 1800.00 RUB. */
const packed = { items: [{ name: "Сыр, кг (по весу)", quantity: 1.3, priceKopecks: 100_000, vat: "vat22" as const }, { name: "Доставка", quantity: 1, priceKopecks: 50_000, vat: "none" as const, paymentSubject: "service" as const }] };

describe.each(ENGINES)("two-stage payments (%s)", (engine) => {
  let stack: Stack;
  let shop: LiveShop;

  beforeAll(async () => {
    stack = await Stack.start({
      services: ["directory", "gateway", "payments", "acquirer-emulator", "webhook-dispatcher", "balance", "receipts", "cash-register-emulator"],
      postgres: engine === "postgres",
      env: { RECEIPTS_RETRY_BASE: "100ms", RECEIPTS_RETRY_CAP: "300ms", CASH_REGISTER_DELAY: "50ms" },
    });
    shop = await shopWithReceiver(stack);
  });
  afterAll(async () => {
    shop?.receiver.stop();
    await stack?.stop();
  });

  /** A live hold the buyer paid with a card: AUTHORIZED. */
  async function held(request: Record<string, unknown> = {}): Promise<Payment> {
    const p = await create(stack, shop, { amountKopecks: HELD, capture: false, ...request });
    expect(p).toMatchObject({ status: "CREATED", method: "CARD", capture: false, heldKopecks: HELD, captureDeadline: null });
    await buyerPays(stack, p.id, { method: "CARD" });
    return statusIs(stack, shop, p.id, "AUTHORIZED");
  }
  const capture = (id: string, json?: unknown) => api(stack, shop, `/v1/payments/${id}/capture`, { method: "POST", ...(json === undefined ? {} : { json }) });
  const cancel = (id: string) => api(stack, shop, `/v1/payments/${id}/cancel`, { method: "POST" });
  const balance = async () => Balance.parse((await api(stack, shop, "/v1/balance")).body);
  const session = async (id: string) => (await (await acquirer(stack, `/v1/sessions/${id}`)).json()) as { status: string; capturedKopecks: number | null; reason: string | null };

  test("hold → partial capture: the payment, the balance and the sale receipt are of the captured amount only", async () => {
    const auth = await held({ receipt });
    expect(auth).toMatchObject({ amountKopecks: HELD, heldKopecks: HELD, captureDeadline: expect.any(String), paidAt: null });
    const hook = await webhookOf(shop, auth.id, "AUTHORIZED");
    expect(hook).toMatchObject({ amountKopecks: HELD, capture: false, heldKopecks: HELD, captureDeadline: auth.captureDeadline });
    // held money is not on the balance, and a hold has no receipt
    expect(await balance()).toMatchObject({ availableKopecks: 0, frozenKopecks: 0 });
    expect(await receiptsOf(stack, shop.shopId, auth.id)).toEqual([]);

    // a partial capture of a payment with a receipt needs the lines of what was sold
    expect(await refusal(capture(auth.id, { amountKopecks: 180_000 }))).toEqual({ status: 400, code: "CAPTURE_RECEIPT_REQUIRED" });
    expect(await refusal(capture(auth.id, { amountKopecks: 180_000, receipt: { items: packed.items.slice(0, 1) } }))).toEqual({ status: 400, code: "VALIDATION_FAILED" });
    expect(await refusal(capture(auth.id, { amountKopecks: HELD + 1, receipt: packed }))).toEqual({ status: 400, code: "CAPTURE_EXCEEDS_HOLD" });

    const res = await capture(auth.id, { amountKopecks: 180_000, receipt: packed });
    expect(res.status).toBe(200);
    const captured = Payment.parse(res.body);
    expect(captured).toMatchObject({ status: "SUCCESS", amountKopecks: 180_000, heldKopecks: HELD, commissionKopecks: 4500, captureDeadline: null, paidAt: expect.any(String) });
    expect(await session(await sessionOf(auth.id))).toMatchObject({ status: "PAID", capturedKopecks: 180_000 });
    expect(await webhookOf(shop, auth.id, "SUCCESS")).toMatchObject({ amountKopecks: 180_000, heldKopecks: HELD });
    // repeats: the same amount (or none) answers it again, another amount is refused
    expect((await capture(auth.id, { amountKopecks: 180_000, receipt: packed })).body).toEqual(captured);
    expect((await capture(auth.id)).body).toEqual(captured);
    expect(await refusal(capture(auth.id, { amountKopecks: 170_000 }))).toEqual({ status: 409, code: "HOLD_ALREADY_CAPTURED" });

    // the balance credits the captured amount less its commission, on the capture's day
    await eventually(async () => (await balance()).frozenKopecks === 180_000 - 4500);
    const [sale] = await registered(stack, shop.shopId, auth.id);
    expect(sale).toMatchObject({ kind: "SALE", amountKopecks: 180_000, items: [{ quantity: 1.3, amountKopecks: 130_000 }, { amountKopecks: 50_000 }] });

    // a captured payment is refunded as any: at most what was taken
    expect(await refusal(api(stack, shop, `/v1/payments/${auth.id}/refunds`, { method: "POST", json: { amountKopecks: 180_001 } }))).toEqual({ status: 409, code: "REFUND_EXCEEDS_REFUNDABLE" });
    expect(await api(stack, shop, `/v1/payments/${auth.id}/refunds`, { method: "POST", json: { amountKopecks: 30_000 } })).toMatchObject({ status: 201, body: { amountKopecks: 30_000 } });
    // (PENDING when a copy of the call answered first: it ends on its own)
    await eventually(async () => ((await api(stack, shop, `/v1/payments/${auth.id}/refunds`)).body as { items: { status: string }[] }).items[0]?.status === "SUCCEEDED");
    await webhooksAre(shop, auth.id, ["AUTHORIZED", "SUCCESS"]);
  });

  /** The acquirer session behind the payment (the card form's action names it). */
  async function sessionOf(id: string): Promise<string> {
    return (await stack.call(rpcs.payments.checkout, { id })).card!.sessionId;
  }

  test("void: cancel releases the hold at the bank; a repeat is 200, a capture after it 409", async () => {
    const auth = await held();
    const res = await cancel(auth.id);
    expect(res).toMatchObject({ status: 200, body: { status: "CANCELED", captureDeadline: null } });
    expect(await session(await sessionOf(auth.id))).toMatchObject({ status: "VOIDED", reason: "voided_by_merchant" });
    expect((await cancel(auth.id)).body).toEqual(res.body);
    expect(await refusal(capture(auth.id))).toEqual({ status: 409, code: "PAYMENT_NOT_CAPTURABLE" });
    await webhooksAre(shop, auth.id, ["AUTHORIZED", "CANCELED"]);
    expect(await receiptsOf(stack, shop.shopId, auth.id)).toEqual([]);
  });

  test("capture ‖ void: each hold ends in exactly one of them, as the acquirer has it, with one webhook", async () => {
    const holds = await Promise.all(Array.from({ length: 4 }, () => held()));
    const answers = await Promise.all(holds.flatMap((h) => [capture(h.id), cancel(h.id), capture(h.id), cancel(h.id)]));
    // every call is answered with the payment or a refusal, never a 5xx
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    for (const h of holds) {
      const final = await getPayment(stack, shop, h.id);
      expect(["SUCCESS", "CANCELED"]).toContain(final.status);
      const bank = await session(await sessionOf(h.id));
      expect(bank.status).toBe(final.status === "SUCCESS" ? "PAID" : "VOIDED");
      await webhooksAre(shop, h.id, ["AUTHORIZED", final.status]);
    }
  });

  test("a capture whose answer is lost: 503, and the capture still ends SUCCESS once, by the acquirer's callback", async () => {
    const auth = await held();
    expect((await acquirer(stack, "/v1/control/drop-answers", { operation: "capture", count: 1 })).status).toBe(200);
    expect(await refusal(capture(auth.id))).toEqual({ status: 503, code: "PROVIDER_NO_ANSWER" });
    const paid = await statusIs(stack, shop, auth.id, "SUCCESS");
    expect(paid.amountKopecks).toBe(HELD);
    // the merchant's retry answers the same capture
    expect((await capture(auth.id)).body).toEqual(paid);
    await webhooksAre(shop, auth.id, ["AUTHORIZED", "SUCCESS"]);
  });

  test("charges of a saved card: one with its own sale receipt, refunded as any payment; one held, then captured", async () => {
    const { methodId } = await savedCard(stack, shop);
    const charged = await outcomeOf(stack, shop, await api(stack, shop, "/v1/payments", { method: "POST", json: { orderId: `charge-${Date.now()}`, amountKopecks: HELD, paymentMethodId: methodId, receipt } }));
    expect(charged).toMatchObject({ status: "SUCCESS", merchantInitiated: true });
    expect((await registered(stack, shop.shopId, charged.id))[0]).toMatchObject({ kind: "SALE", amountKopecks: HELD });
    expect(await api(stack, shop, `/v1/payments/${charged.id}/refunds`, { method: "POST", json: { amountKopecks: 50_000 } })).toMatchObject({ status: 201 });
    await eventually(async () => ((await api(stack, shop, `/v1/payments/${charged.id}/refunds`)).body as { items: { status: string }[] }).items[0]?.status === "SUCCEEDED");
    await registered(stack, shop.shopId, charged.id, 2);

    const res = await api(stack, shop, "/v1/payments", { method: "POST", json: { orderId: `held-charge-${Date.now()}`, amountKopecks: 70_000, paymentMethodId: methodId, capture: false } });
    const auth = await outcomeOf(stack, shop, res);
    expect(auth).toMatchObject({ status: "AUTHORIZED", merchantInitiated: true, capture: false, heldKopecks: 70_000 });
    expect((await capture(auth.id, { amountKopecks: 65_000 })).body).toMatchObject({ status: "SUCCESS", amountKopecks: 65_000 });
  });

  // Refused before anything is written.
  sqliteRunOnly(engine, () => {
    test("a hold is a card's: without a method it is fixed to CARD; a shop without cards cannot hold", async () => {
      const sbpOnly = await shopWithReceiver(stack, { methods: ["SBP"] });
      try {
        expect(await refusal(api(stack, sbpOnly, "/v1/payments", { method: "POST", json: { orderId: "h-1", amountKopecks: 1000, capture: false } }))).toEqual({ status: 409, code: "METHOD_NOT_AVAILABLE" });
      } finally {
        sbpOnly.receiver.stop();
      }
      const p = await create(stack, shop, { capture: false });
      expect(await refusal(api(stack, shop, `/v1/payments/${p.id}/capture`, { method: "POST" }))).toEqual({ status: 409, code: "PAYMENT_NOT_CAPTURABLE" });
    });
  });
});
