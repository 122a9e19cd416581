import { bodyLimit } from "hono/body-limit";
import { Hono } from "hono";
import { DomainError, ERROR_HTTP_STATUS, errorBody } from "@payaccept/contracts";
import { jsonError, type AppEnv } from "@payaccept/platform";
import { applyProviderCallback, type CallbackOutcome } from "../app/provider-callback.ts";
import type { PaymentsDeps } from "../app/deps.ts";
import type { Connector } from "../connectors/connector.ts";
import type { ReadCallback } from "../provider/callback.ts";

const MAX_BYTES = 64 * 1024;

/**
 * Each connector's notification route (the emulator's POST /provider/callback, T-Bank's POST
 * /provider/tbank/notification): verified and read by the connector, applied by payments, and
 * answered as the connector's acquirer expects only once every result is committed (or was
 * already), so the acquirer keeps sending until payments has it.
 */
export function providerCallbackRoutes(d: PaymentsDeps, connectors: Connector[]): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const connector of connectors) {
    const channel = connector.notifications;
    app.post(channel.path, bodyLimit({ maxSize: MAX_BYTES, onError: (c) => jsonError(c, new DomainError("BODY_TOO_LARGE", { maxBytes: MAX_BYTES })) }), async (c) => {
      let reads: ReadCallback[];
      try {
        reads = await channel.read({
          headers: c.req.raw.headers,
          rawBody: await c.req.text(),
          nowMs: d.now(),
          stored: async (merchantPaymentId) => {
            const row = await d.repo.byId(merchantPaymentId).catch(() => undefined);
            return { sessionId: row?.providerSessionId ?? null, method: row?.method ?? null };
          },
        });
      } catch (e) {
        if (!(e instanceof DomainError)) throw e;
        if (e.reason === "CALLBACK_SIGNATURE_INVALID") c.get("log").warn({ connector: connector.id, reason: e.params.detail }, "provider callback refused");
        return channel.refusal(ERROR_HTTP_STATUS[e.code], errorBody(e));
      }
      const outcomes: CallbackOutcome[] = [];
      for (const read of reads) {
        const cb = read.callback;
        const outcome = await applyProviderCallback(d, read, connector.id);
        outcomes.push(outcome);
        // Money that moved but could not be applied needs a person: a PAID that was ignored or returned is a warning.
        const level = (outcome.result === "ignored" || outcome.result === "returned") && cb.event === "PAID" ? "warn" : "info";
        c.get("log")[level]({ connector: connector.id, callbackId: cb.callbackId, paymentId: cb.merchantPaymentId, sessionId: cb.sessionId, event: cb.event, ...outcome }, "provider callback");
      }
      const retry = outcomes.some((o) => o.result === "retry");
      return channel.answer({ retry, summary: outcomes.length === 1 ? outcomes[0] : { results: outcomes } });
    });
  }
  return app;
}
