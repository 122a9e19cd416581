import type { z } from "zod";
import {
  ProviderCancel,
  ProviderErrorBody,
  ProviderRefund,
  ProviderSavedMethod,
  ProviderSession,
  ProviderSessionState,
} from "@payaccept/contracts";
import { tracedFetch } from "@payaccept/platform";
import { fetchFailure, notStarted, ProviderError, type ProviderPort, type SbpLinks } from "./port.ts";
import { outcomeOf } from "./provider-reasons.ts";

export type AcquirerHttpOptions = {
  baseUrl: string;
  apiKey: string;
  callbackUrl: string;
  timeoutMs: number;
};

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const path = (...parts: string[]) => parts.map(encodeURIComponent).join("/");

/** The provider port over HTTP (docs/acquirer-protocol.md). */
export function acquirerHttp(opts: AcquirerHttpOptions): ProviderPort {
  async function call<S extends z.ZodType>(method: "GET" | "POST", route: string, body: unknown, reply: S): Promise<z.output<S>> {
    let res: Response;
    let text: string;
    try {
      res = await tracedFetch(`${opts.baseUrl}${route}`, {
        method,
        headers: { Authorization: `Bearer ${opts.apiKey}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: "manual",
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      text = await res.text();
    } catch (e) {
      throw fetchFailure(e, "acquirer", opts.timeoutMs);
    }
    if (res.status >= 500) throw notStarted(`acquirer answered ${res.status}`);
    const json = parseJson(text);
    if (res.status < 200 || res.status >= 300) {
      const err = ProviderErrorBody.safeParse(json);
      const said = err.data && (err.data.message === undefined ? err.data.error : [err.data.message].flat().join("; "));
      throw new ProviderError("rejected", `acquirer refused (${res.status})${said ? `: ${said}` : ""}`, err.data?.code, err.data?.params);
    }
    const parsed = reply.safeParse(json);
    if (!parsed.success) throw new ProviderError("rejected", `acquirer reply to ${route} does not follow the protocol`);
    return parsed.data;
  }
  const post = <S extends z.ZodType>(route: string, body: unknown, reply: S) => call("POST", route, body, reply);
  const state = async (p: Promise<ProviderSessionState>) => outcomeOf(await p);
  /** A lookup whose "not found" is an answer (null), not a failure. */
  const orNull = async <T>(p: Promise<T>, notFound: ProviderError["reason"]): Promise<T | null> => {
    try {
      return await p;
    } catch (e) {
      if (e instanceof ProviderError && e.reason === notFound) return null;
      throw e;
    }
  };

  return {
    createSession: (req) =>
      post(
        "/v1/sessions",
        {
          merchantPaymentId: req.paymentId,
          method: req.method,
          amountKopecks: req.amountKopecks,
          description: req.description,
          returnUrl: req.returnUrl,
          callbackUrl: opts.callbackUrl,
          expiresAt: iso(req.expiresAt),
          saveMethod: req.saveMethod ?? false,
          hold: req.hold ?? false,
          merchantName: req.merchantName ?? null,
        },
        ProviderSession,
      ),
    cancelSession: async (sessionId) => {
      await post(`/v1/sessions/${path(sessionId)}/cancel`, {}, ProviderCancel);
    },
    // Idempotent by the refund's id at the emulator itself: the ledger is not needed.
    refund: (sessionId, amountKopecks, refundId) => post(`/v1/sessions/${path(sessionId)}/refund`, { amountKopecks, merchantRefundId: refundId }, ProviderRefund),
    session: (sessionId) => state(call("GET", `/v1/sessions/${path(sessionId)}`, undefined, ProviderSessionState)),
    charge: (req) =>
      state(
        post(
          "/v1/charges",
          {
            chargeId: req.chargeId,
            methodId: req.methodId,
            amountKopecks: req.amountKopecks,
            description: req.description,
            returnUrl: req.returnUrl,
            callbackUrl: opts.callbackUrl,
            hold: req.hold ?? false,
            expiresAt: iso(req.expiresAt),
          },
          ProviderSessionState,
        ),
      ),
    findCharge: (chargeId) => orNull(state(call("GET", `/v1/charges/${path(chargeId)}`, undefined, ProviderSessionState)), "SESSION_NOT_FOUND"),
    capture: (sessionId, amountKopecks) => state(post(`/v1/sessions/${path(sessionId)}/capture`, amountKopecks === undefined ? {} : { amountKopecks }, ProviderSessionState)),
    void: (sessionId) => state(post(`/v1/sessions/${path(sessionId)}/void`, {}, ProviderSessionState)),
    createBinding: async (req) => {
      const links = await post(
        "/v1/bindings",
        { bindingId: req.bindingId, merchantName: req.merchantName, description: req.description, returnUrl: req.returnUrl, callbackUrl: opts.callbackUrl, expiresAt: iso(req.expiresAt) },
        ProviderSession,
      );
      if (links.method !== "SBP") throw new ProviderError("rejected", "acquirer reply to /v1/bindings does not follow the protocol");
      return links satisfies SbpLinks;
    },
    savedMethod: (methodId) => orNull(call("GET", `/v1/methods/${path(methodId)}`, undefined, ProviderSavedMethod), "METHOD_NOT_FOUND"),
    revokeMethod: (methodId) => post(`/v1/methods/${path(methodId)}/revoke`, {}, ProviderSavedMethod),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
