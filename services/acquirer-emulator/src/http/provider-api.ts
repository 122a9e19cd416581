import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { DomainError, MAX_AMOUNT_KOPECKS, ProviderRefundRequest, ProviderSessionRequest, type ProviderCancel, type ProviderRefund } from "@payaccept/contracts";
import { jsonError, readJsonBody, requireBearer, type AppEnv } from "@payaccept/platform";
import { cancelSession, openSession, refundSession, sessionLinks } from "../sessions.ts";
import type { AcquirerDb } from "../store/db.ts";

const httpUrl = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(2048);

/** The protocol's request, held to what the emulator can act on (real URLs, the spec's bounds). */
const SessionRequest = ProviderSessionRequest.extend({
  amountKopecks: z.number().int().positive().max(MAX_AMOUNT_KOPECKS),
  description: z.string().max(255).nullable(),
  returnUrl: httpUrl,
  callbackUrl: httpUrl,
});

/** Server-to-server API for payments (docs/acquirer-protocol.md), behind the shared bearer key. */
export function providerApi(deps: { db: AcquirerDb; publicUrl: string; apiKey: string }): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  api.use("*", bodyLimit({ maxSize: 64 * 1024, onError: (c) => jsonError(c, new DomainError("BODY_TOO_LARGE", { maxBytes: 64 * 1024 })) }));
  api.use("*", requireBearer(deps.apiKey));

  api.post("/sessions", async (c) => {
    const req = await readJsonBody(c, SessionRequest);
    const { session, created } = openSession(deps.db, req, Date.now());
    if (created) c.get("log").info({ sessionId: session.id, merchantPaymentId: session.merchantPaymentId, method: session.method }, "session opened");
    return c.json(sessionLinks(session, deps.publicUrl), created ? 201 : 200);
  });

  api.post("/sessions/:id/cancel", (c) => {
    const session = cancelSession(deps.db, c.req.param("id"));
    c.get("log").info({ sessionId: session.id, merchantPaymentId: session.merchantPaymentId }, "session canceled");
    const body: ProviderCancel = { sessionId: session.id, status: "CANCELED" };
    return c.json(body, 200);
  });

  api.post("/sessions/:id/refund", async (c) => {
    const req = await readJsonBody(c, ProviderRefundRequest);
    const { refund, created } = refundSession(deps.db, { sessionId: c.req.param("id"), ...req }, Date.now());
    if (created) c.get("log").info({ sessionId: refund.sessionId, refundId: refund.id, amountKopecks: req.amountKopecks, status: refund.status }, "refund made");
    const body: ProviderRefund = { refundId: refund.id, status: refund.status, reason: refund.reason };
    return c.json(body, created ? 201 : 200);
  });

  return api;
}
