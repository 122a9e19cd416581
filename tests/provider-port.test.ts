import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { DEV_ACQUIRER_API_KEY, DEV_ACQUIRER_CALLBACK_SECRET, DomainError, type ProviderSession } from "@payaccept/contracts";
import { acquirerHttp } from "../services/payments/src/provider/acquirer-http.ts";
import { readProviderCallback, type ReadCallback } from "../services/payments/src/provider/callback.ts";
import type { ProviderPort } from "../services/payments/src/provider/port.ts";
import { AcquirerClient } from "./acquirer-fixtures.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";

// Real processes take longer than bun's 5 s default; bounded all the same.
setDefaultTimeout(60_000);

/**
 * Payments' provider port (its HTTP adapter) against the real acquirer emulator, and the emulator's
 * real callbacks read the way payments reads them (readProviderCallback): every new operation,
 * its failures in the catalogue's reasons, and a lost answer recovered by the charge's own id.
 */

let stack: Stack;
let acq: AcquirerClient;
let provider: ProviderPort;
/** Every callback the emulator sent, as payments reads it; a refusal would be kept as its reason. */
const read: (ReadCallback | { refused: string })[] = [];
let callbackServer: ReturnType<typeof Bun.serve>;
const paypage = "http://localhost:39998";
const card = (pan: string) => ({ pan, exp: "12/99", cvc: "123", holder: "IVAN PETROV" });

beforeAll(async () => {
  callbackServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      try {
        read.push(
          readProviderCallback({
            secret: DEV_ACQUIRER_CALLBACK_SECRET,
            timestamp: req.headers.get("x-acquirer-timestamp") ?? undefined,
            signature: req.headers.get("x-acquirer-signature") ?? undefined,
            rawBody: await req.text(),
            nowMs: Date.now(),
          }),
        );
        return new Response(null, { status: 200 });
      } catch (e) {
        read.push({ refused: (e as DomainError).reason });
        return new Response(null, { status: 400 });
      }
    },
  });
  stack = await Stack.start({ services: ["acquirer-emulator"] });
  acq = new AcquirerClient(stack);
  provider = acquirerHttp({ baseUrl: acq.base, apiKey: DEV_ACQUIRER_API_KEY, callbackUrl: `http://127.0.0.1:${callbackServer.port}/provider/callback`, timeoutMs: 2500 });
}, STACK_START_MS);
afterAll(async () => {
  await stack?.stop();
  callbackServer?.stop(true);
});

/** The callbacks read for a session, once there are `count`; none was refused. */
async function callbacksOf(sessionId: string, count: number) {
  const mine = () => read.filter((r): r is ReadCallback => "callback" in r && r.callback.sessionId === sessionId);
  await eventually(() => mine().length >= count);
  expect(read.filter((r) => "refused" in r)).toEqual([]);
  return mine();
}

const session = (method: "CARD" | "SBP", extra: Partial<Parameters<ProviderPort["createSession"]>[0]> = {}) => {
  const paymentId = crypto.randomUUID();
  return provider.createSession({ paymentId, method, amountKopecks: 300_000, description: "Доставка", returnUrl: `${paypage}/pay/${paymentId}`, expiresAt: Date.now() + 600_000, merchantName: "Кофейня", ...extra });
};

async function payByCard(s: ProviderSession, pan: string) {
  if (s.method !== "CARD") throw new Error("expected CARD");
  const res = await acq.postForm(acq.local(s.formAction), card(pan), paypage);
  expect(res.status).toBe(303);
}

/** A saved card's id, from the PAID callback as payments reads it. */
async function savedCard(pan: string): Promise<string> {
  const s = await session("CARD", { saveMethod: true });
  await payByCard(s, pan);
  const [paid] = await callbacksOf(s.sessionId, 1);
  expect(paid!.known).toMatchObject({ event: "PAID", amountKopecks: 300_000, savedMethod: { method: "CARD", status: "ACTIVE" } });
  return paid!.known!.savedMethod!.methodId;
}

const charge = (methodId: string, extra: Partial<Parameters<ProviderPort["charge"]>[0]> = {}) =>
  provider.charge({ chargeId: crypto.randomUUID(), methodId, amountKopecks: 120_000, description: "Подписка", returnUrl: `${paypage}/pay/c`, ...extra });

describe("saved cards and charges through the port", () => {
  test("save → charge three times → revoke → refused with METHOD_REVOKED", async () => {
    const methodId = await savedCard("4111111111111111");
    for (let i = 0; i < 3; i++) expect(await charge(methodId)).toMatchObject({ status: "PAID", capturedKopecks: 120_000, failure: null });
    expect(await provider.revokeMethod(methodId)).toMatchObject({ status: "REVOKED", revokedBy: "MERCHANT" });
    const refused = await charge(methodId);
    expect(refused).toMatchObject({ status: "DECLINED", failure: { reason: "METHOD_REVOKED", params: {} } });
    expect((await callbacksOf(refused.sessionId, 1))[0]!.failure).toEqual({ reason: "METHOD_REVOKED", params: {} });
    expect(await provider.savedMethod(methodId)).toMatchObject({ status: "REVOKED" });
    expect(await provider.savedMethod("unknown")).toBeNull();
  });

  test("each test card's refusal is its reason of the catalogue; authentication completes on its URL", async () => {
    for (const [pan, reason] of [
      ["4000000000009995", "INSUFFICIENT_FUNDS"],
      ["4000000000000069", "CARD_EXPIRED"],
      ["4000000000000119", "METHOD_REVOKED"],
    ] as const) {
      expect((await charge(await savedCard(pan))).failure).toEqual({ reason, params: {} });
    }
    const asked = await charge(await savedCard("4000000000000341"));
    expect(asked).toMatchObject({ status: "CHALLENGE", failure: { reason: "AUTHENTICATION_REQUIRED" } });
    const step = acq.local(asked.authenticationUrl!);
    expect((await acq.postForm(step, { token: await acq.tokenOf(step), code: "123456" }, acq.publicOrigin)).status).toBe(303);
    expect((await callbacksOf(asked.sessionId, 1))[0]!.known).toMatchObject({ event: "PAID", amountKopecks: 120_000 });
    expect(await provider.session(asked.sessionId)).toMatchObject({ status: "PAID", failure: null });
  });

  test("a lost answer is 'unavailable'; the charge is found by its id, and the retry charges nothing more", async () => {
    const methodId = await savedCard("4000000000000077");
    const chargeId = crypto.randomUUID();
    await expect(charge(methodId, { chargeId })).rejects.toMatchObject({ kind: "unavailable", reason: "PROVIDER_UNAVAILABLE" });
    const found = await provider.findCharge(chargeId);
    expect(found).toMatchObject({ merchantPaymentId: chargeId, status: "PAID" });
    expect(await charge(methodId, { chargeId })).toEqual(found!);
    expect(await provider.findCharge(crypto.randomUUID())).toBeNull();
    const callbacks = await callbacksOf(found!.sessionId, 1);
    await Bun.sleep(300);
    expect(callbacks.map((c) => c.callback.event)).toEqual(["PAID"]);
  });
});

describe("holds through the port", () => {
  test("hold → partial capture → refund of the captured part; a second capture is rejected with its reason", async () => {
    const s = await session("CARD", { hold: true });
    await payByCard(s, "4111111111111111");
    const [authorized] = await callbacksOf(s.sessionId, 1);
    expect(authorized!.known).toMatchObject({ event: "AUTHORIZED", amountKopecks: 300_000 });
    expect(await provider.capture(s.sessionId, 200_000)).toMatchObject({ status: "PAID", capturedKopecks: 200_000, failure: null });
    expect(await provider.capture(s.sessionId, 200_000)).toMatchObject({ status: "PAID", capturedKopecks: 200_000 });
    await expect(provider.capture(s.sessionId, 250_000)).rejects.toMatchObject({ kind: "rejected", reason: "HOLD_ALREADY_CAPTURED", params: { capturedKopecks: 200_000 } });
    expect((await callbacksOf(s.sessionId, 2))[1]!.known).toMatchObject({ event: "CAPTURED", amountKopecks: 200_000 });
    expect(await provider.refund(s.sessionId, 200_000, crypto.randomUUID())).toMatchObject({ status: "SUCCEEDED" });
  });

  test("void releases a hold; SBP refuses holds with HOLD_NOT_FOR_SBP", async () => {
    const s = await session("CARD", { hold: true });
    await payByCard(s, "4111111111111111");
    expect(await provider.void(s.sessionId)).toMatchObject({ status: "VOIDED", reason: "voided_by_merchant" });
    expect((await callbacksOf(s.sessionId, 2))[1]!.known).toMatchObject({ event: "VOIDED", reason: "voided_by_merchant" });
    await expect(session("SBP", { hold: true })).rejects.toMatchObject({ kind: "rejected", reason: "HOLD_NOT_FOR_SBP" });
  });
});

describe("SBP bindings through the port", () => {
  test("a binding consented in the bank app is BOUND, charged, and its revocation by the payer reaches payments", async () => {
    const bindingId = crypto.randomUUID();
    const links = await provider.createBinding({ bindingId, merchantName: "Кофейня", description: null, returnUrl: `${paypage}/b` });
    const cookie = await acq.bankApp(links.qrPayload, "bind");
    const [bound] = await callbacksOf(links.sessionId, 1);
    expect(bound!.known).toMatchObject({ event: "BOUND", merchantPaymentId: bindingId, savedMethod: { method: "SBP", sbp: { bankName: "Тестовый банк" } } });
    const methodId = bound!.known!.savedMethod!.methodId;
    expect(await charge(methodId)).toMatchObject({ method: "SBP", status: "PAID" });

    const list = await (await fetch(`${acq.base}/app/bindings`, { headers: { Cookie: cookie! } })).text();
    const token = new RegExp(`/app/bindings/${methodId}/revoke"><input type="hidden" name="token" value="([0-9a-f]{64})"`).exec(list)![1]!;
    expect((await acq.postForm(`${acq.base}/app/bindings/${methodId}/revoke`, { token }, acq.publicOrigin, cookie)).status).toBe(303);
    const revoked = (await callbacksOf(links.sessionId, 2))[1]!;
    expect(revoked.known).toMatchObject({ event: "METHOD_REVOKED", merchantPaymentId: bindingId, savedMethod: { methodId, status: "REVOKED", revokedBy: "PAYER" } });
    expect((await charge(methodId)).failure?.reason).toBe("METHOD_REVOKED");
  });
});
