import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ProviderSavedMethod, ProviderSession, ProviderSessionState } from "@payaccept/contracts";
import { AcquirerClient, CallbackReceiver } from "./acquirer-fixtures.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";

// Real processes take longer than bun's 5 s default; bounded all the same.
setDefaultTimeout(60_000);

/**
 * The emulator's saved methods, merchant-initiated charges and holds, as payments reaches them:
 * its real process over HTTP, its pages posted as a browser posts them, its callbacks received by
 * a real listener (docs/acquirer-protocol.md, docs/acquirer-emulator.md).
 */

let stack: Stack;
let receiver: CallbackReceiver;
let acq: AcquirerClient;
const paypageOrigin = "http://localhost:39999";
const card = (pan: string) => ({ pan, exp: "12/99", cvc: "123", holder: "IVAN PETROV" });

beforeAll(async () => {
  receiver = new CallbackReceiver();
  stack = await Stack.start({ services: ["acquirer-emulator"], env: { ACQUIRER_CALLBACK_RETRY_BASE: "50ms", ACQUIRER_CALLBACK_RETRY_CAP: "200ms" } });
  acq = new AcquirerClient(stack);
}, STACK_START_MS);
afterAll(async () => {
  await stack?.stop();
  receiver?.stop();
});

async function json<T>(res: Response | Promise<Response>, status: number, schema: { parse(v: unknown): T }): Promise<T> {
  const r = await res;
  const body = await r.json();
  expect([r.status, body]).toEqual([status, expect.anything()]);
  return schema.parse(body);
}
const refusalOf = async (res: Promise<Response>) => {
  const r = await res;
  return [r.status, ((await r.json()) as { code: string }).code];
};

async function openSession(method: "SBP" | "CARD", extra: Record<string, unknown> = {}) {
  const merchantPaymentId = crypto.randomUUID();
  const body = { merchantPaymentId, method, amountKopecks: 250_000, description: "Чай, подписка", returnUrl: `${paypageOrigin}/pay/${merchantPaymentId}`, callbackUrl: receiver.url, merchantName: "Чайный клуб", ...extra };
  return { merchantPaymentId, session: await json(acq.api("/v1/sessions", body), 201, ProviderSession) };
}

/** Pays on the card form as the payment page posts it; returns the session. */
async function payByCard(pan: string, extra: Record<string, unknown> = {}) {
  const { session } = await openSession("CARD", extra);
  if (session.method !== "CARD") throw new Error("expected CARD");
  const res = await acq.postForm(acq.local(session.formAction), card(pan), paypageOrigin);
  expect(res.status).toBe(303);
  return { session, location: res.headers.get("location")! };
}

/** A card token: pays with the save flag and reads the token from the PAID callback. */
async function savedCard(pan: string): Promise<ProviderSavedMethod> {
  const { session } = await payByCard(pan, { saveMethod: true });
  const [paid] = await receiver.bodiesFor(session.sessionId, 1);
  return paid!.savedMethod!;
}

const chargeBody = (methodId: string, extra: Record<string, unknown> = {}) => ({
  chargeId: crypto.randomUUID(),
  methodId,
  amountKopecks: 99_000,
  description: "Подписка, декабрь",
  returnUrl: `${paypageOrigin}/pay/charge`,
  callbackUrl: receiver.url,
  ...extra,
});
const charge = (body: Record<string, unknown>, status = 201) => json(acq.api("/v1/charges", body), status, ProviderSessionState);

describe("card tokens", () => {
  test("a card paid with the save flag yields a token and a safe description in the PAID callback and the session", async () => {
    const { session } = await payByCard("4111 1111 1111 1111", { saveMethod: true });
    const [paid] = await receiver.bodiesFor(session.sessionId, 1);
    expect(paid).toMatchObject({ event: "PAID", amountKopecks: 250_000, savedMethod: { method: "CARD", status: "ACTIVE", card: { brand: "VISA", last4: "1111", expMonth: 12, expYear: 2099 } } });
    const state = await json(acq.api(`/v1/sessions/${session.sessionId}`), 200, ProviderSessionState);
    expect(state).toMatchObject({ kind: "PAYMENT", status: "PAID", capturedKopecks: 250_000, savedMethod: paid!.savedMethod });
    expect(await json(acq.api(`/v1/methods/${paid!.savedMethod!.methodId}`), 200, ProviderSavedMethod)).toEqual(paid!.savedMethod!);
  });

  test("a 3-D Secure card is saved once its code passes; without the flag nothing is saved", async () => {
    const { session, location } = await payByCard("4000 0000 0000 3220", { saveMethod: true });
    const step = `${acq.base}${location}`;
    expect((await acq.postForm(step, { token: await acq.tokenOf(step), code: "123456" }, acq.publicOrigin)).status).toBe(303);
    expect((await receiver.bodiesFor(session.sessionId, 1))[0]!.savedMethod?.card?.last4).toBe("3220");
    const plain = await payByCard("4111111111111111");
    expect((await receiver.bodiesFor(plain.session.sessionId, 1))[0]!.savedMethod).toBeNull();
  });
});

describe("merchant-initiated charges", () => {
  test("save → charge three times → revoke → refused; each charge has its PAID callback", async () => {
    const token = await savedCard("4111111111111111");
    for (let i = 0; i < 3; i++) {
      const paid = await charge(chargeBody(token.methodId));
      expect(paid).toMatchObject({ kind: "CHARGE", method: "CARD", status: "PAID", capturedKopecks: 99_000, savedMethod: { methodId: token.methodId } });
      expect((await receiver.bodiesFor(paid.sessionId, 1)).map((b) => b.event)).toEqual(["PAID"]);
    }
    const revoked = await json(acq.api(`/v1/methods/${token.methodId}/revoke`, {}), 200, ProviderSavedMethod);
    expect(revoked).toMatchObject({ status: "REVOKED", revokedBy: "MERCHANT" });
    const refused = await charge(chargeBody(token.methodId));
    expect(refused).toMatchObject({ status: "DECLINED", reason: "method_revoked" });
    expect((await receiver.bodiesFor(refused.sessionId, 1)).map((b) => [b.event, b.reason])).toEqual([["DECLINED", "method_revoked"]]);
  });

  test("the test cards decline charges: insufficient funds, an expired card, a token revoked at the bank", async () => {
    for (const [pan, reason, status] of [
      ["4000000000009995", "insufficient_funds", "ACTIVE"],
      ["4000000000000069", "card_expired", "EXPIRED"],
      ["4000000000000119", "method_revoked", "REVOKED"],
    ] as const) {
      const token = await savedCard(pan);
      expect(await charge(chargeBody(token.methodId))).toMatchObject({ status: "DECLINED", reason });
      expect((await json(acq.api(`/v1/methods/${token.methodId}`), 200, ProviderSavedMethod)).status).toBe(status);
    }
  });

  test("the bank asks for authentication: the URL leads to the 3-D Secure step, whose code completes the charge", async () => {
    const token = await savedCard("4000000000000341");
    const body = chargeBody(token.methodId);
    const asked = await charge(body);
    expect(asked).toMatchObject({ status: "CHALLENGE", authenticationUrl: `${stack.env.ACQUIRER_PUBLIC_URL}/card/${asked.sessionId}/3ds` });
    const step = acq.local(asked.authenticationUrl!);
    expect(await (await fetch(step)).text()).toContain("Банк просит подтвердить списание с сохранённой карты: его запросил магазин «Чайный клуб».");
    const done = await acq.postForm(step, { token: await acq.tokenOf(step), code: "123456" }, acq.publicOrigin);
    expect([done.status, done.headers.get("location")]).toEqual([303, body.returnUrl]);
    expect((await receiver.bodiesFor(asked.sessionId, 1)).map((b) => [b.event, b.amountKopecks])).toEqual([["PAID", 99_000]]);
    expect((await json(acq.api(`/v1/charges/${body.chargeId}`), 200, ProviderSessionState)).status).toBe("PAID");
  });

  test("a lost answer (test card 0077): the charge is committed, found by its id, and a retry never charges twice", async () => {
    const token = await savedCard("4000000000000077");
    const body = chargeBody(token.methodId);
    expect(await acq.api("/v1/charges", body).then(
      () => "answered",
      () => "lost",
    )).toBe("lost");
    const found = await json(acq.api(`/v1/charges/${body.chargeId}`), 200, ProviderSessionState);
    expect(found).toMatchObject({ merchantPaymentId: body.chargeId, status: "PAID" });
    expect(await charge(body, 200)).toEqual(found);
    expect(await receiver.bodiesFor(found.sessionId, 1)).toHaveLength(1);
    await Bun.sleep(300); // a second PAID, were one written, would be delivered by now
    expect(await receiver.bodiesFor(found.sessionId, 1)).toHaveLength(1);
    expect(stack.log("acquirer-emulator")).toContain("answer dropped on purpose");
  });

  test("the lost-answer knob drops the next answers of one operation; what was asked is committed", async () => {
    const token = await savedCard("4111111111111111");
    expect(await json(acq.api("/v1/control/drop-answers", { operation: "charge", count: 1 }), 200, { parse: (v: unknown) => v })).toEqual({ operation: "charge", count: 1 });
    const body = chargeBody(token.methodId);
    await expect(acq.api("/v1/charges", body)).rejects.toThrow();
    expect(await charge(body, 200)).toMatchObject({ status: "PAID" });
    expect(await refusalOf(acq.api("/v1/control/drop-answers", { operation: "everything", count: 1 }))).toEqual([400, "VALIDATION_FAILED"]);
  });

  test("refusals: an unknown method or charge is 404, another amount under the same id 409, a hold with SBP 400", async () => {
    expect(await refusalOf(acq.api("/v1/charges", chargeBody("nope")))).toEqual([404, "METHOD_NOT_FOUND"]);
    expect(await refusalOf(acq.api(`/v1/charges/${crypto.randomUUID()}`))).toEqual([404, "SESSION_NOT_FOUND"]);
    const token = await savedCard("4111111111111111");
    const body = chargeBody(token.methodId);
    await charge(body);
    expect(await refusalOf(acq.api("/v1/charges", { ...body, amountKopecks: 1 }))).toEqual([409, "SESSION_TERMS_MISMATCH"]);
    expect(await refusalOf(acq.api("/v1/sessions", { merchantPaymentId: crypto.randomUUID(), method: "SBP", amountKopecks: 100, description: null, returnUrl: paypageOrigin, callbackUrl: receiver.url, hold: true }))).toEqual([
      400,
      "HOLD_NOT_FOR_SBP",
    ]);
  });
});

describe("holds", () => {
  async function held() {
    const { session } = await payByCard("4111111111111111", { hold: true });
    const [authorized] = await receiver.bodiesFor(session.sessionId, 1);
    expect(authorized).toMatchObject({ event: "AUTHORIZED", amountKopecks: 250_000, paidAt: null });
    expect(Date.parse(authorized!.holdExpiresAt!)).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
    return session.sessionId;
  }
  const capture = (id: string, body: unknown = {}) => acq.api(`/v1/sessions/${id}/capture`, body);
  const voidHold = (id: string) => acq.api(`/v1/sessions/${id}/void`, {});

  test("the card form says the amount will be held and the card saved, as the buyer agreed", async () => {
    const { session } = await openSession("CARD", { hold: true, saveMethod: true });
    if (session.method !== "CARD") throw new Error("expected CARD");
    const form = await (await fetch(acq.local(session.formAction))).text();
    expect(form).toContain("Сумма будет заблокирована на карте");
    expect(form).toContain("магазин «Чайный клуб» сможет списывать с неё оплату без вас");
  });

  test("a partial capture takes part, releases the rest and is idempotent; refunds are of the captured part only", async () => {
    const id = await held();
    expect(await refusalOf(capture(id, { amountKopecks: 250_001 }))).toEqual([400, "CAPTURE_EXCEEDS_HOLD"]);
    const captured = await json(capture(id, { amountKopecks: 180_000 }), 200, ProviderSessionState);
    expect(captured).toMatchObject({ status: "PAID", hold: true, amountKopecks: 250_000, capturedKopecks: 180_000 });
    expect(await json(capture(id, { amountKopecks: 180_000 }), 200, ProviderSessionState)).toEqual(captured);
    expect(await refusalOf(voidHold(id))).toEqual([409, "HOLD_ALREADY_CAPTURED"]);
    expect((await receiver.bodiesFor(id, 2)).map((b) => [b.event, b.amountKopecks])).toEqual([
      ["AUTHORIZED", 250_000],
      ["CAPTURED", 180_000],
    ]);
    expect(await refusalOf(acq.api(`/v1/sessions/${id}/refund`, { amountKopecks: 180_001, merchantRefundId: crypto.randomUUID() }))).toEqual([400, "SESSION_REFUND_EXCEEDS"]);
  });

  test("a void releases the hold, idempotently; nothing is captured after it", async () => {
    const id = await held();
    const voided = await json(voidHold(id), 200, ProviderSessionState);
    expect(voided).toMatchObject({ status: "VOIDED", reason: "voided_by_merchant" });
    expect(await json(voidHold(id), 200, ProviderSessionState)).toEqual(voided);
    expect(await refusalOf(capture(id))).toEqual([409, "HOLD_VOIDED"]);
    expect((await receiver.bodiesFor(id, 2)).map((b) => [b.event, b.reason])).toEqual([
      ["AUTHORIZED", null],
      ["VOIDED", "voided_by_merchant"],
    ]);
  });

  test("a capture whose answer is lost is found captured, and its retry captures nothing more", async () => {
    const id = await held();
    await json(acq.api("/v1/control/drop-answers", { operation: "capture", count: 1 }), 200, { parse: (v: unknown) => v });
    await expect(capture(id, { amountKopecks: 100_000 })).rejects.toThrow();
    expect(await json(acq.api(`/v1/sessions/${id}`), 200, ProviderSessionState)).toMatchObject({ status: "PAID", capturedKopecks: 100_000 });
    expect((await json(capture(id, { amountKopecks: 100_000 }), 200, ProviderSessionState)).capturedKopecks).toBe(100_000);
    expect((await receiver.bodiesFor(id, 2)).map((b) => b.event)).toEqual(["AUTHORIZED", "CAPTURED"]);
  });
});

describe("SBP bindings in the bank app", () => {
  const bindingsPage = (cookie?: string) => fetch(`${acq.base}/app/bindings`, { headers: cookie ? { Cookie: cookie } : {} }).then((r) => r.text());
  const revokeToken = (html: string, methodId: string) => new RegExp(`action="/app/bindings/${methodId}/revoke"><input type="hidden" name="token" value="([0-9a-f]{64})"`).exec(html)![1]!;

  test("a binding without payment: consent in the bank app, BOUND with the account, listed, revoked by the payer → METHOD_REVOKED", async () => {
    const bindingId = crypto.randomUUID();
    const links = await json(acq.api("/v1/bindings", { bindingId, merchantName: "Чайный клуб", description: "Подписка на чай", returnUrl: `${paypageOrigin}/b`, callbackUrl: receiver.url }), 201, ProviderSession);
    if (links.method !== "SBP") throw new Error("expected SBP links");
    expect(await json(acq.api("/v1/bindings", { bindingId, merchantName: "Чайный клуб", description: "Подписка на чай", returnUrl: `${paypageOrigin}/b`, callbackUrl: receiver.url }), 200, ProviderSession)).toEqual(links);
    const consent = await (await fetch(acq.local(links.qrPayload))).text();
    expect(consent).toContain("Магазин «Чайный клуб»</strong> просит привязать ваш счёт");
    expect(consent).toContain("Отозвать привязку можно в любой момент");
    const cookie = await acq.bankApp(links.qrPayload, "bind");
    expect(cookie).toMatch(/^bank_payer=[0-9a-f-]{36}$/);
    const [bound] = await receiver.bodiesFor(links.sessionId, 1);
    expect(bound).toMatchObject({ event: "BOUND", merchantPaymentId: bindingId, savedMethod: { method: "SBP", status: "ACTIVE", sbp: { bankName: "Тестовый банк" } } });
    const methodId = bound!.savedMethod!.methodId;
    expect(await (await fetch(acq.local(links.qrPayload))).text()).toContain("Счёт привязан");
    expect(await charge(chargeBody(methodId))).toMatchObject({ method: "SBP", status: "PAID" });

    // another browser sees no bindings and cannot revoke this one
    expect(await bindingsPage()).toContain("Привязок нет");
    const list = await bindingsPage(cookie);
    expect(list).toContain("«Чайный клуб»");
    const token = revokeToken(list, methodId);
    const revokeUrl = `${acq.base}/app/bindings/${methodId}/revoke`;
    expect((await acq.postForm(revokeUrl, { token }, acq.publicOrigin, "bank_payer=" + crypto.randomUUID())).status).toBe(404);
    expect((await acq.postForm(revokeUrl, { token }, "https://evil.example", cookie)).status).toBe(403);
    expect((await acq.postForm(revokeUrl, { token: "0".repeat(64) }, acq.publicOrigin, cookie)).status).toBe(403);
    const revoked = await acq.postForm(revokeUrl, { token }, acq.publicOrigin, cookie);
    expect([revoked.status, revoked.headers.get("location")]).toEqual([303, "/app/bindings?revoked"]);
    const events = await receiver.bodiesFor(links.sessionId, 2);
    expect(events.map((b) => [b.event, b.reason, b.savedMethod?.status, b.savedMethod?.revokedBy])).toEqual([
      ["BOUND", null, "ACTIVE", null],
      ["METHOD_REVOKED", "method_revoked", "REVOKED", "PAYER"],
    ]);
    expect(await bindingsPage(cookie)).toContain("Отозвана");
    expect(await charge(chargeBody(methodId))).toMatchObject({ status: "DECLINED", reason: "method_revoked" });
  });

  test("pay and bind: the buyer's save flag offers the binding with the payment; paying without it binds nothing", async () => {
    const { session } = await openSession("SBP", { saveMethod: true });
    if (session.method !== "SBP") throw new Error("expected SBP");
    const page = await (await fetch(acq.local(session.qrPayload))).text();
    expect(page).toContain("Оплатить и привязать счёт");
    expect(page).toContain("Оплатить без привязки");
    await acq.bankApp(session.qrPayload, "pay-bind");
    const [paid] = await receiver.bodiesFor(session.sessionId, 1);
    expect(paid).toMatchObject({ event: "PAID", amountKopecks: 250_000, savedMethod: { method: "SBP" } });
    expect(await charge(chargeBody(paid!.savedMethod!.methodId, { amountKopecks: 10_051 }))).toMatchObject({ status: "DECLINED", reason: "insufficient_funds" });

    const other = (await openSession("SBP", { saveMethod: true })).session;
    if (other.method !== "SBP") throw new Error("expected SBP");
    await acq.bankApp(other.qrPayload, "pay");
    expect((await receiver.bodiesFor(other.sessionId, 1))[0]).toMatchObject({ event: "PAID", savedMethod: null });
    // a plain payment's bank app takes no binding decision
    const plain = (await openSession("SBP")).session;
    if (plain.method !== "SBP") throw new Error("expected SBP");
    const res = await acq.postForm(acq.local(plain.qrPayload), { token: await acq.tokenOf(acq.local(plain.qrPayload)), decision: "pay-bind" }, acq.publicOrigin);
    expect(res.status).toBe(400);
  });
});

describe("the acquirer's own hold deadline", () => {
  let short: Stack;
  beforeAll(async () => {
    short = await Stack.start({ services: ["acquirer-emulator"], env: { ACQUIRER_HOLD_TTL: "1s", ACQUIRER_CALLBACK_RETRY_BASE: "50ms", ACQUIRER_CALLBACK_RETRY_CAP: "200ms" } });
  }, STACK_START_MS);
  afterAll(() => short?.stop());

  test("a hold nobody captures is voided at the deadline with a VOIDED callback; a capture after it is refused", async () => {
    const other = new AcquirerClient(short);
    const merchantPaymentId = crypto.randomUUID();
    const session = await json(
      other.api("/v1/sessions", { merchantPaymentId, method: "CARD", amountKopecks: 5000, description: null, returnUrl: `${paypageOrigin}/pay/x`, callbackUrl: receiver.url, hold: true }),
      201,
      ProviderSession,
    );
    if (session.method !== "CARD") throw new Error("expected CARD");
    expect((await other.postForm(other.local(session.formAction), card("4111111111111111"), paypageOrigin)).status).toBe(303);
    const events = await receiver.bodiesFor(session.sessionId, 2);
    expect(events.map((b) => [b.event, b.reason])).toEqual([
      ["AUTHORIZED", null],
      ["VOIDED", "hold_expired"],
    ]);
    expect(await refusalOf(other.api(`/v1/sessions/${session.sessionId}/capture`, {}))).toEqual([409, "HOLD_VOIDED"]);
    await eventually(() => short.log("acquirer-emulator").includes("holds voided at the acquirer's deadline"));
  });
});

test("saved cards leave no card number in the emulator's log, only what the protocol may say", () => {
  const log = stack.log("acquirer-emulator");
  expect(log).toContain("charge made");
  for (const pan of ["4111111111111111", "4000000000000077", "4000000000000341", "4000000000009995", "4000 0000 0000 3220", "IVAN PETROV"]) expect(log).not.toContain(pan);
});
