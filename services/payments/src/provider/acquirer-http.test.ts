import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { delay, http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { acquirerHttp } from "./acquirer-http.ts";
import { ProviderError } from "./port.ts";

/**
 * The adapter as a real provider would see it: third-party HTTP, so msw stands in for the far side
 * here, including the failures the emulator does not produce on demand (5xx, hangs, broken replies).
 * tests/payments-provider.test.ts runs it against the real emulator.
 */
const BASE = "http://127.0.0.1:59999";
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const provider = acquirerHttp({ baseUrl: BASE, apiKey: "secret-key", callbackUrl: "http://payments.test/provider/callback", timeoutMs: 200 });
const paymentId = "0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e";
const request = { paymentId, method: "SBP" as const, amountKopecks: 12345, description: "Coffee", returnUrl: `https://pay.test/pay/${paymentId}`, expiresAt: Date.parse("2026-11-24T05:00:00.000Z") };

async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ProviderError) return e;
    throw e;
  }
  throw new Error("expected a ProviderError");
}

describe("createSession", () => {
  test("posts the protocol's body with the bearer key and reads the session", async () => {
    let seen: { auth: string | null; body: unknown } | undefined;
    server.use(
      http.post(`${BASE}/v1/sessions`, async ({ request: req }) => {
        seen = { auth: req.headers.get("authorization"), body: await req.json() };
        return HttpResponse.json({ sessionId: "s-1", method: "SBP", qrPayload: "https://bank.test/sbp/s-1", deepLink: "bank://pay/s-1" }, { status: 201 });
      }),
    );
    expect(await provider.createSession(request)).toEqual({ sessionId: "s-1", method: "SBP", qrPayload: "https://bank.test/sbp/s-1", deepLink: "bank://pay/s-1" });
    expect(seen).toEqual({
      auth: "Bearer secret-key",
      body: {
        merchantPaymentId: paymentId,
        method: "SBP",
        amountKopecks: 12345,
        description: "Coffee",
        returnUrl: `https://pay.test/pay/${paymentId}`,
        callbackUrl: "http://payments.test/provider/callback",
        expiresAt: "2026-11-24T05:00:00.000Z",
        saveMethod: false,
        hold: false,
        merchantName: null,
      },
    });
  });

  test("cancelSession posts to the session's cancel URL; a 409 (already paid) is 'rejected'", async () => {
    let path: string | undefined;
    server.use(
      http.post(`${BASE}/v1/sessions/:id/cancel`, ({ request: req, params }) => {
        path = new URL(req.url).pathname;
        return params.id === "paid" ? HttpResponse.json({ error: "the session is already paid" }, { status: 409 }) : HttpResponse.json({ sessionId: params.id, status: "CANCELED" });
      }),
    );
    await provider.cancelSession("s-1");
    expect(path).toBe("/v1/sessions/s-1/cancel");
    expect(await providerError(provider.cancelSession("paid"))).toMatchObject({ kind: "rejected", message: "acquirer refused (409): the session is already paid" });
  });

  test("a 5xx, a dropped connection or no answer in time is 'unavailable'", async () => {
    server.use(http.post(`${BASE}/v1/sessions`, () => HttpResponse.json({ error: "down" }, { status: 503 })));
    expect(await providerError(provider.createSession(request))).toMatchObject({ kind: "unavailable", message: "acquirer answered 503" });
    server.use(http.post(`${BASE}/v1/sessions`, () => HttpResponse.error()));
    expect((await providerError(provider.createSession(request))).kind).toBe("unavailable");
    server.use(
      http.post(`${BASE}/v1/sessions`, async () => {
        await delay(2000);
        return HttpResponse.json({});
      }),
    );
    expect(await providerError(provider.createSession(request))).toMatchObject({ kind: "unavailable", message: "acquirer unreachable: no answer within 200 ms" });
  });

  test("a 4xx is a refusal, with the provider's reason", async () => {
    server.use(http.post(`${BASE}/v1/sessions`, () => HttpResponse.json({ error: "amount too large" }, { status: 400 })));
    expect(await providerError(provider.createSession(request))).toMatchObject({ kind: "rejected", message: "acquirer refused (400): amount too large" });
  });

  test("a 2xx that breaks the protocol is a refusal, not a session", async () => {
    server.use(http.post(`${BASE}/v1/sessions`, () => HttpResponse.json({ sessionId: "s-1", method: "SBP" })));
    expect((await providerError(provider.createSession(request))).kind).toBe("rejected");
    server.use(http.post(`${BASE}/v1/sessions`, () => new HttpResponse("<html>", { status: 200 })));
    expect((await providerError(provider.createSession(request))).kind).toBe("rejected");
  });
});

describe("refund", () => {
  test("posts the amount and the refund's id to the session's refund and reads the outcome", async () => {
    let body: unknown;
    server.use(
      http.post(`${BASE}/v1/sessions/:id/refund`, async ({ request: req, params }) => {
        body = { id: params.id, ...((await req.json()) as object) };
        return HttpResponse.json({ refundId: "r-1", status: "SUCCEEDED" });
      }),
    );
    const refundId = Bun.randomUUIDv7();
    expect(await provider.refund("s/1", 500, refundId, { paidKopecks: 1000, refundedKopecks: 0, refundingKopecks: 500 })).toEqual({ refundId: "r-1", status: "SUCCEEDED" });
    expect(body).toEqual({ id: "s/1", amountKopecks: 500, merchantRefundId: refundId });
  });

  test("a 409 is a refusal", async () => {
    server.use(http.post(`${BASE}/v1/sessions/:id/refund`, () => HttpResponse.json({ error: "only a paid session can be refunded" }, { status: 409 })));
    expect(await providerError(provider.refund("s-1", 500, Bun.randomUUIDv7(), { paidKopecks: 1000, refundedKopecks: 0, refundingKopecks: 500 }))).toMatchObject({ kind: "rejected", message: "acquirer refused (409): only a paid session can be refunded" });
  });
});
