import type { z } from "zod";
import { ProviderCancel, ProviderErrorBody, ProviderRefund, ProviderSession } from "@payaccept/contracts";
import { ProviderError, type ProviderPort } from "./port.ts";

export type AcquirerHttpOptions = {
  baseUrl: string;
  apiKey: string;
  callbackUrl: string;
  timeoutMs: number;
};

/** The provider port over HTTP (docs/acquirer-protocol.md). */
export function acquirerHttp(opts: AcquirerHttpOptions): ProviderPort {
  async function post<S extends z.ZodType>(path: string, body: unknown, reply: S): Promise<z.output<S>> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${opts.baseUrl}${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${opts.apiKey}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
        redirect: "manual",
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
      text = await res.text();
    } catch (e) {
      const reason = (e as Error).name === "TimeoutError" ? `no answer within ${opts.timeoutMs} ms` : (e as Error).message;
      throw new ProviderError("unavailable", `acquirer unreachable: ${reason}`);
    }
    if (res.status >= 500) throw new ProviderError("unavailable", `acquirer answered ${res.status}`);
    const json = parseJson(text);
    if (res.status < 200 || res.status >= 300) {
      const err = ProviderErrorBody.safeParse(json);
      throw new ProviderError("rejected", `acquirer refused (${res.status})${err.success ? `: ${err.data.error}` : ""}`);
    }
    const parsed = reply.safeParse(json);
    if (!parsed.success) throw new ProviderError("rejected", `acquirer reply to ${path} does not follow the protocol`);
    return parsed.data;
  }

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
          expiresAt: new Date(req.expiresAt).toISOString(),
        },
        ProviderSession,
      ),
    cancelSession: async (sessionId) => {
      await post(`/v1/sessions/${encodeURIComponent(sessionId)}/cancel`, {}, ProviderCancel);
    },
    refund: (sessionId, amountKopecks, refundId) =>
      post(`/v1/sessions/${encodeURIComponent(sessionId)}/refund`, { amountKopecks, merchantRefundId: refundId }, ProviderRefund),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
