import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { ProviderCallback, ProviderRefund, ProviderSession } from "@payaccept/contracts";
import { AcquirerClient, CallbackReceiver, signatureOf, type Received } from "./acquirer-fixtures.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";

// Real processes (and a real browser) take longer than bun's 5 s default; bounded all the same.
setDefaultTimeout(60_000);

/**
 * The emulator alone, as payments sees it: its HTTP API, its pages as a browser posts them, and
 * its signed callbacks, received here by a listener that verifies them exactly as the protocol says.
 */

let stack: Stack;
let receiver: CallbackReceiver;
let acquirer: string;
let publicOrigin: string;
let client: AcquirerClient;
const paypageOrigin = "http://localhost:39999";

beforeAll(async () => {
  receiver = new CallbackReceiver();
  stack = await Stack.start({
    services: ["acquirer-emulator"],
    env: { ACQUIRER_CALLBACK_RETRY_BASE: "50ms", ACQUIRER_CALLBACK_RETRY_CAP: "200ms" },
  });
  client = new AcquirerClient(stack);
  acquirer = client.base;
  publicOrigin = client.publicOrigin;
}, STACK_START_MS);

afterAll(async () => {
  await stack?.stop();
  receiver?.stop();
});

const api = (path: string, json: unknown, key?: string | null) => client.api(path, json, { key });

async function openSession(method: "SBP" | "CARD", amountKopecks = 150000) {
  const merchantPaymentId = crypto.randomUUID();
  const res = await api("/v1/sessions", {
    merchantPaymentId,
    method,
    amountKopecks,
    description: "Зёрна кофе",
    returnUrl: `${paypageOrigin}/pay/${merchantPaymentId}`,
    callbackUrl: receiver.url,
  });
  expect(res.status).toBe(201);
  return { merchantPaymentId, session: ProviderSession.parse(await res.json()) };
}

const local = (publicUrl: string) => client.local(publicUrl);
const tokenOf = (pageUrl: string) => client.tokenOf(pageUrl);
const postForm = (url: string, fields: Record<string, string>, origin: string | null) => client.postForm(url, fields, origin);

const payInBankApp = async (qrPayload: string, decision: "pay" | "decline" = "pay") => void (await client.bankApp(qrPayload, decision));

async function callbacksOf(sessionId: string, count: number): Promise<Received[]> {
  await eventually(() => receiver.callbacksFor(sessionId).length >= count);
  return receiver.callbacksFor(sessionId);
}
const logLines = () => stack.log("acquirer-emulator").split("\n");
const eventsOf = (rs: Received[]) => rs.map((r) => ProviderCallback.parse(JSON.parse(r.body))).map((b) => [b.event, b.reason]);

describe("provider API", () => {
  test("refuses a missing or wrong bearer key in the Error shape", async () => {
    for (const key of [null, "wrong"]) {
      const res = await api("/v1/sessions", {}, key);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ statusCode: 401, message: "missing or invalid bearer token", error: "Unauthorized", code: "BEARER_TOKEN_INVALID", params: {} });
    }
  });

  test("lists every problem of an invalid session request", async () => {
    const res = await api("/v1/sessions", { method: "CASH", amountKopecks: -1, returnUrl: "javascript:alert(1)" });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { message: string[] };
    expect(body.message).toEqual(expect.arrayContaining([expect.stringMatching(/^merchantPaymentId/), expect.stringMatching(/^method/), expect.stringMatching(/^amountKopecks/), "returnUrl: must be an http(s) URL"]));
  });

  test("a session is idempotent by payment and method", async () => {
    const { merchantPaymentId, session } = await openSession("SBP");
    const body = { merchantPaymentId, method: "SBP", amountKopecks: 150000, description: "Зёрна кофе", returnUrl: `${paypageOrigin}/pay/x`, callbackUrl: receiver.url };
    const repeat = await api("/v1/sessions", body);
    expect(repeat.status).toBe(200);
    expect(await repeat.json()).toEqual(session);
    const changed = await api("/v1/sessions", { ...body, amountKopecks: 100 });
    expect(changed.status).toBe(409);
    const card = ProviderSession.parse(await (await api("/v1/sessions", { ...body, method: "CARD" })).json());
    expect(card.method).toBe("CARD");
    expect(card.sessionId).not.toBe(session.sessionId);
  });

  test("refunds a paid session, partly or whole, once per merchant refund id, and only a paid one", async () => {
    const { session } = await openSession("SBP");
    const refund = (amountKopecks: number, merchantRefundId: string = Bun.randomUUIDv7()) =>
      api(`/v1/sessions/${session.sessionId}/refund`, { amountKopecks, merchantRefundId });
    expect((await refund(150000)).status).toBe(409);
    await payInBankApp((session as { qrPayload: string }).qrPayload);
    expect((await refund(150001)).status).toBe(400);
    const id = Bun.randomUUIDv7();
    const first = await refund(100000, id);
    expect(first.status).toBe(201);
    const made = ProviderRefund.parse(await first.json());
    expect(made.status).toBe("SUCCEEDED");
    const again = await refund(100000, id);
    expect(again.status).toBe(200);
    expect(ProviderRefund.parse(await again.json())).toEqual(made);
    // The test rule: an amount ending in 13 kopecks is declined, and returns nothing.
    const declined = await refund(10013);
    expect(declined.status).toBe(201);
    expect(ProviderRefund.parse(await declined.json())).toMatchObject({ status: "FAILED", reason: "refund_declined" });
    expect((await refund(50001)).status).toBe(400);
    expect(ProviderRefund.parse(await (await refund(50000)).json()).status).toBe("SUCCEEDED");
    expect((await api("/v1/sessions/unknown/refund", { amountKopecks: 1, merchantRefundId: id })).status).toBe(404);
  });
});

describe("SBP bank app", () => {
  test("paying sends a PAID callback signed over timestamp and raw body", async () => {
    const { merchantPaymentId, session } = await openSession("SBP");
    if (session.method !== "SBP") throw new Error("expected SBP");
    const page = await (await fetch(local(session.qrPayload))).text();
    expect(page).toMatch(/1\s500,00\s₽/);
    expect(page).toContain("Зёрна кофе");
    await payInBankApp(session.qrPayload);
    const [cb] = await callbacksOf(session.sessionId, 1);
    expect(cb!.headers.get("x-acquirer-timestamp")).toMatch(/^\d+$/);
    expect(cb!.headers.get("x-acquirer-signature")).toBe(signatureOf(cb!));
    const body = ProviderCallback.parse(JSON.parse(cb!.body));
    expect(body).toMatchObject({ sessionId: session.sessionId, merchantPaymentId, event: "PAID", reason: null });
    expect(body.paidAt).not.toBeNull();
    expect(await (await fetch(local(session.qrPayload))).text()).toContain("Оплачено");
  });

  test("a declined QR can still be paid later: DECLINED, then PAID", async () => {
    const { session } = await openSession("SBP");
    if (session.method !== "SBP") throw new Error("expected SBP");
    await payInBankApp(session.qrPayload, "decline");
    await callbacksOf(session.sessionId, 1);
    await payInBankApp(session.qrPayload, "pay");
    const cbs = await callbacksOf(session.sessionId, 2);
    expect(eventsOf(cbs)).toEqual([
      ["DECLINED", "declined_by_buyer"],
      ["PAID", null],
    ]);
  });

  test("refuses a form without our token or from a foreign origin", async () => {
    const { session } = await openSession("SBP");
    if (session.method !== "SBP") throw new Error("expected SBP");
    const page = local(session.qrPayload);
    const noToken = await postForm(page, { decision: "pay" }, publicOrigin);
    const foreign = await postForm(page, { decision: "pay", token: await tokenOf(page) }, "https://evil.example");
    expect([noToken.status, foreign.status]).toEqual([403, 403]);
    expect(await noToken.text()).toContain("Страница устарела");
    expect(receiver.callbacksFor(session.sessionId)).toEqual([]);
  });

  test("an unknown or hostile session id is a 404 page with the input escaped", async () => {
    const res = await fetch(`${acquirer}/sbp/${encodeURIComponent("<script>alert(1)</script>")}`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await res.text()).not.toContain("<script>");
  });
});

describe("card form target", () => {
  const card = (pan: string) => ({ pan, exp: "12/99", cvc: "123", holder: "IVAN PETROV" });

  async function submitFromPaymentPage(pan: string) {
    const { merchantPaymentId, session } = await openSession("CARD");
    if (session.method !== "CARD") throw new Error("expected CARD");
    const res = await postForm(local(session.formAction), card(pan), paypageOrigin);
    return { merchantPaymentId, session, res };
  }

  test("4111 1111 1111 1111 pays and returns the buyer to the payment page", async () => {
    const { merchantPaymentId, session, res } = await submitFromPaymentPage("4111 1111 1111 1111");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`${paypageOrigin}/pay/${merchantPaymentId}`);
    expect(eventsOf(await callbacksOf(session.sessionId, 1))).toEqual([["PAID", null]]);
    const repeat = await postForm(local(session.formAction), card("4111111111111111"), paypageOrigin);
    expect(repeat.status).toBe(303);
    expect(receiver.callbacksFor(session.sessionId)).toHaveLength(1);
  });

  test("4000 0000 0000 0002 is declined", async () => {
    const { session, res } = await submitFromPaymentPage("4000000000000002");
    expect(res.status).toBe(303);
    expect(eventsOf(await callbacksOf(session.sessionId, 1))).toEqual([["DECLINED", "card_declined"]]);
  });

  test("4000 0000 0000 3220 asks for a 3-D Secure code: 123456 pays, another code declines", async () => {
    for (const [code, expected] of [
      ["123456", ["PAID", null]],
      ["000000", ["DECLINED", "3ds_failed"]],
    ] as const) {
      const { merchantPaymentId, session, res } = await submitFromPaymentPage("4000000000003220");
      expect(res.status).toBe(303);
      const challenge = `${acquirer}${res.headers.get("location")}`;
      expect(challenge).toEndWith(`/card/${session.sessionId}/3ds`);
      const done = await postForm(challenge, { token: await tokenOf(challenge), code }, publicOrigin);
      expect(done.status).toBe(303);
      expect(done.headers.get("location")).toBe(`${paypageOrigin}/pay/${merchantPaymentId}`);
      expect(eventsOf(await callbacksOf(session.sessionId, 1))).toEqual([[...expected]]);
    }
  });

  test("a number failing the Luhn check is refused on the server without echoing it", async () => {
    const { session, res } = await submitFromPaymentPage("4111111111111112");
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain("card number is not valid");
    expect(html).not.toContain("4111111111111112");
    expect(receiver.callbacksFor(session.sessionId)).toEqual([]);
  });

  test("a post from a foreign origin without our token is refused", async () => {
    const { session } = await openSession("CARD");
    if (session.method !== "CARD") throw new Error("expected CARD");
    const res = await postForm(local(session.formAction), card("4111111111111111"), "https://evil.example");
    expect(res.status).toBe(403);
  });

  test("card numbers and codes never reach the emulator's log", () => {
    const log = stack.log("acquirer-emulator");
    expect(log).toContain("callback delivered");
    for (const secret of ["4111111111111111", "4111 1111 1111 1111", "4000000000003220", "IVAN PETROV"]) expect(log).not.toContain(secret);
  });
});

describe("callback delivery", () => {
  test("retries with the same body and a fresh signature until a 2xx", async () => {
    receiver.status = 503;
    const { session } = await openSession("SBP");
    if (session.method !== "SBP") throw new Error("expected SBP");
    await payInBankApp(session.qrPayload);
    const [first] = await callbacksOf(session.sessionId, 3);
    receiver.status = 200;
    const { callbackId } = ProviderCallback.parse(JSON.parse(first!.body));
    await eventually(() => logLines().some((l) => l.includes(callbackId) && l.includes("callback delivered")));
    const attempts = receiver.callbacksFor(session.sessionId);
    expect(attempts.length).toBeGreaterThanOrEqual(4);
    expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
    for (const a of attempts) expect(a.headers.get("x-acquirer-signature")).toBe(signatureOf(a));
  });

  test("survives an emulator crash: the callback stored before it is delivered after the restart", async () => {
    receiver.status = 500;
    const { session } = await openSession("SBP");
    if (session.method !== "SBP") throw new Error("expected SBP");
    await payInBankApp(session.qrPayload);
    await callbacksOf(session.sessionId, 1);
    await stack.kill("acquirer-emulator");
    receiver.status = 200;
    const before = receiver.callbacksFor(session.sessionId).length;
    await stack.restart("acquirer-emulator");
    const after = await callbacksOf(session.sessionId, before + 1);
    expect(eventsOf(after.slice(before))[0]).toEqual(["PAID", null]);
    // The session itself survived too: the bank page still knows it was paid.
    expect(await (await fetch(local(session.qrPayload))).text()).toContain("Оплачено");
  });
});
