import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import {
  DomainError,
  MAX_AMOUNT_KOPECKS,
  ProviderBindingRequest,
  ProviderCaptureRequest,
  ProviderChargeRequest,
  ProviderRefundRequest,
  ProviderSessionRequest,
  type ProviderCancel,
  type ProviderRefund,
} from "@payaccept/contracts";
import { jsonError, readJsonBody, requireBearer, type AppEnv, type GroupCommit } from "@payaccept/platform";
import type { CallbackDispatcher } from "../callbacks/dispatcher.ts";
import { charge } from "../charges.ts";
import { captureHold, voidHold } from "../holds.ts";
import { findMethod, methodView, revokeByMerchant } from "../methods.ts";
import { refundSession } from "../refunds.ts";
import { cancelSession, findCharge, findSession, openBinding, openSession, sessionLinks, sessionState } from "../sessions.ts";
import type { AcquirerDb } from "../store/db.ts";
import type { SessionRow } from "../store/schema.ts";
import { DropAnswers, DropAnswersRequest, lostAnswer, type DroppableOperation } from "./drop-answers.ts";

const httpUrl = z.url({ protocol: /^https?$/, message: "must be an http(s) URL" }).max(2048);
const amount = z.number().int().positive().max(MAX_AMOUNT_KOPECKS);
const description = z.string().max(255).nullable();

/** The protocol's requests, held to what the emulator can act on (real URLs, the spec's bounds). */
const SessionRequest = ProviderSessionRequest.extend({ amountKopecks: amount, description, returnUrl: httpUrl, callbackUrl: httpUrl });
const ChargeRequest = ProviderChargeRequest.extend({ amountKopecks: amount, description, returnUrl: httpUrl, callbackUrl: httpUrl });
const BindingRequest = ProviderBindingRequest.extend({ description, returnUrl: httpUrl, callbackUrl: httpUrl });
const CaptureRequest = ProviderCaptureRequest.extend({ amountKopecks: amount.optional() });

export type ProviderApiDeps = {
  db: AcquirerDb;
  commits: GroupCommit;
  publicUrl: string;
  apiKey: string;
  holdTtlMs: number;
  dispatcher: CallbackDispatcher;
  drops: DropAnswers;
};

/** Server-to-server API for payments (docs/acquirer-protocol.md), behind the shared bearer key. */
export function providerApi(deps: ProviderApiDeps): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  api.use("*", bodyLimit({ maxSize: 64 * 1024, onError: (c) => jsonError(c, new DomainError("BODY_TOO_LARGE", { maxBytes: 64 * 1024 })) }));
  api.use("*", requireBearer(deps.apiKey));

  const state = (row: SessionRow) => sessionState(deps.db, row, deps.publicUrl, Date.now());
  /** The answer, or nothing at all when the lost-answer knob is armed for this operation (what was asked is committed either way). */
  const answer = (c: Context<AppEnv>, operation: DroppableOperation, body: unknown, status: 200 | 201, lose = false) => {
    if (lose || deps.drops.take(operation)) {
      c.get("log").warn({ operation }, "answer dropped on purpose (test knob): committed, connection closed");
      return lostAnswer();
    }
    return c.json(body, status);
  };
  const sessionParam = (c: Context<AppEnv>) => {
    const row = findSession(deps.db, c.req.param("id") ?? "");
    if (!row) throw new DomainError("SESSION_NOT_FOUND");
    return row;
  };

  api.post("/sessions", async (c) => {
    const req = await readJsonBody(c, SessionRequest);
    const { session, created } = openSession(deps.db, req, Date.now());
    if (created) c.get("log").info({ sessionId: session.id, merchantPaymentId: session.merchantPaymentId, method: session.method, hold: session.hold, saveMethod: session.saveMethod }, "session opened");
    return c.json(sessionLinks(session, deps.publicUrl), created ? 201 : 200);
  });

  api.get("/sessions/:id", (c) => c.json(state(sessionParam(c))));

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
    return answer(c, "refund", body, created ? 201 : 200);
  });

  api.post("/sessions/:id/capture", async (c) => {
    const req = await readJsonBody(c, CaptureRequest);
    const session = captureHold(deps.db, c.req.param("id"), req.amountKopecks, Date.now());
    c.get("log").info({ sessionId: session.id, merchantPaymentId: session.merchantPaymentId, capturedKopecks: session.capturedKopecks }, "hold captured");
    deps.dispatcher.poke();
    return answer(c, "capture", state(session), 200);
  });

  api.post("/sessions/:id/void", async (c) => {
    const session = voidHold(deps.db, c.req.param("id"), Date.now());
    c.get("log").info({ sessionId: session.id, merchantPaymentId: session.merchantPaymentId, reason: session.declineReason }, "hold voided");
    deps.dispatcher.poke();
    return answer(c, "void", state(session), 200);
  });

  api.post("/charges", async (c) => {
    const req = await readJsonBody(c, ChargeRequest);
    const now = Date.now();
    const done = await deps.commits.run(() => charge(deps.db, req, now, deps.holdTtlMs));
    const { session } = done;
    if (done.created) c.get("log").info({ sessionId: session.id, chargeId: session.merchantPaymentId, methodId: session.methodId, status: session.status, reason: session.declineReason }, "charge made");
    if (done.callbackId) void deps.dispatcher.deliverNow(done.callbackId);
    return answer(c, "charge", state(session), done.created ? 201 : 200, done.dropAnswer);
  });

  api.get("/charges/:chargeId", (c) => {
    const row = findCharge(deps.db, c.req.param("chargeId"));
    if (!row) throw new DomainError("SESSION_NOT_FOUND");
    return c.json(state(row));
  });

  api.post("/bindings", async (c) => {
    const req = await readJsonBody(c, BindingRequest);
    const { session, created } = openBinding(deps.db, req, Date.now());
    if (created) c.get("log").info({ sessionId: session.id, bindingId: session.merchantPaymentId }, "binding session opened");
    return c.json(sessionLinks(session, deps.publicUrl), created ? 201 : 200);
  });

  api.get("/methods/:id", (c) => {
    const row = findMethod(deps.db, c.req.param("id"));
    if (!row) throw new DomainError("METHOD_NOT_FOUND");
    return c.json(methodView(row, Date.now()));
  });

  api.post("/methods/:id/revoke", (c) => {
    const row = revokeByMerchant(deps.db, c.req.param("id"), Date.now());
    c.get("log").info({ methodId: row.id, revokedBy: row.revokedBy }, "method revoked");
    return c.json(methodView(row, Date.now()));
  });

  api.post("/control/drop-answers", async (c) => {
    const req = await readJsonBody(c, DropAnswersRequest);
    deps.drops.arm(req.operation, req.count);
    c.get("log").warn(req, "lost-answer knob armed");
    return c.json(req);
  });

  return api;
}
