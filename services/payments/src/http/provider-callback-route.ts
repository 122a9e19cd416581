import { bodyLimit } from "hono/body-limit";
import { Hono } from "hono";
import { DomainError } from "@payaccept/contracts";
import { jsonError, type AppEnv } from "@payaccept/platform";
import { applyProviderCallback } from "../app/provider-callback.ts";
import type { PaymentsDeps } from "../app/deps.ts";
import { readProviderCallback, type ReadCallback } from "../provider/callback.ts";

/**
 * POST /provider/callback: the acquirer's signed result. Answers 2xx only once the result is
 * committed (or was already), so the acquirer keeps retrying until payments has it.
 */
export function providerCallbackRoutes(d: PaymentsDeps, secret: string): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/provider/callback", bodyLimit({ maxSize: 64 * 1024, onError: (c) => jsonError(c, new DomainError("BODY_TOO_LARGE", { maxBytes: 64 * 1024 })) }), async (c) => {
    let read: ReadCallback;
    try {
      read = readProviderCallback({
        secret,
        timestamp: c.req.header("x-acquirer-timestamp"),
        signature: c.req.header("x-acquirer-signature"),
        rawBody: await c.req.text(),
        nowMs: d.now(),
      });
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      if (e.reason === "CALLBACK_SIGNATURE_INVALID") c.get("log").warn({ reason: e.params.detail }, "provider callback refused");
      return jsonError(c, e);
    }
    const cb = read.callback;
    const outcome = await applyProviderCallback(d, read);
    // Money that moved but could not be applied needs a person: a PAID that was ignored or returned is a warning.
    const level = (outcome.result === "ignored" || outcome.result === "returned") && cb.event === "PAID" ? "warn" : "info";
    c.get("log")[level]({ callbackId: cb.callbackId, paymentId: cb.merchantPaymentId, sessionId: cb.sessionId, event: cb.event, ...outcome }, "provider callback");
    return c.json(outcome, outcome.result === "retry" ? 503 : 200);
  });
  return app;
}
