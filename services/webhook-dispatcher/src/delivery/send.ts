import { failure, type Failure } from "@payaccept/contracts";
import { NonPublicAddressError, type Resolver } from "@payaccept/domain";
import { httpClientAttributes, inClientSpan } from "@payaccept/platform";
import { signatureHeaders, type SigningSecrets } from "./signature.ts";
import { InvalidWebhookUrlError, resolveTarget } from "./target.ts";

/** One webhook to send: where, the stored bytes, and the secrets it is signed with at this attempt. */
export type WebhookRequest = SigningSecrets & { url: string; body: string };

/** What one HTTP attempt came to. durationMs runs from the start (DNS included) to the response headers. */
export type AttemptOutcome =
  | { kind: "delivered"; httpStatus: number; durationMs: number }
  | { kind: "failed"; httpStatus: number | null; error: Failure; durationMs: number }
  | { kind: "blocked"; error: Failure; durationMs: number };

export type SendOptions = {
  timeoutMs: number;
  allowPrivate: boolean;
  now: () => number;
  resolve?: Resolver;
  /** Extra TLS settings (a private CA in tests). */
  tls?: { ca?: string };
};

const USER_AGENT = "payaccept-webhooks/1";

/**
 * POSTs a stored body to a shop's webhook URL once (spec §4.6, §6): signed at send time, a 2xx
 * within the timeout is the only success, redirects are not followed, and the response body is
 * never read (the stream is cancelled), so a receiver cannot make us download anything. While
 * tracing is on the attempt (its address check included) is a client span with the receiver's
 * status; the merchant gets no trace context from us and the span keeps only the URL's host.
 */
export function sendWebhook(req: WebhookRequest, opts: SendOptions): Promise<AttemptOutcome> {
  return inClientSpan("POST webhook", () => webhookAttributes(req.url), () => attempt(req, opts), (o) => ({
    outcome: o.kind,
    httpStatus: "httpStatus" in o ? o.httpStatus : null,
    reason: o.kind === "delivered" ? undefined : o.error.reason,
    failed: o.kind !== "delivered",
  }));
}

/** A URL that does not parse is the attempt's failure to report, not the span's. */
function webhookAttributes(url: string) {
  try {
    return httpClientAttributes("POST", url, false);
  } catch {
    return {};
  }
}

async function attempt(req: WebhookRequest, opts: SendOptions): Promise<AttemptOutcome> {
  const started = opts.now();
  const elapsed = () => opts.now() - started;
  const signal = AbortSignal.timeout(opts.timeoutMs);
  try {
    const target = await abortable(resolveTarget(req.url, opts), signal);
    const res = await fetch(target.connectUrl, {
      method: "POST",
      body: req.body,
      headers: {
        Host: target.hostHeader,
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        ...signatureHeaders(req.body, req, Math.floor(opts.now() / 1000)),
      },
      redirect: "manual",
      signal,
      // The checked address is the one we connect to; an environment proxy would resolve again.
      proxy: false,
      tls: target.serverName || opts.tls ? { ...opts.tls, serverName: target.serverName } : undefined,
    });
    void res.body?.cancel().catch(() => {});
    const durationMs = elapsed();
    if (res.status >= 200 && res.status < 300) return { kind: "delivered", httpStatus: res.status, durationMs };
    return { kind: "failed", httpStatus: res.status, error: describeStatus(res.status), durationMs };
  } catch (e) {
    const durationMs = elapsed();
    if (e instanceof NonPublicAddressError) return { kind: "blocked", error: failure("WEBHOOK_ADDRESS_BLOCKED", { host: e.hostname }), durationMs };
    if (signal.aborted) return { kind: "failed", httpStatus: null, error: failure("WEBHOOK_TIMEOUT", { timeoutMs: opts.timeoutMs }), durationMs };
    return { kind: "failed", httpStatus: null, error: describeError(e), durationMs };
  }
}

function describeStatus(httpStatus: number): Failure {
  return failure(httpStatus >= 300 && httpStatus < 400 ? "WEBHOOK_REDIRECT" : "WEBHOOK_HTTP_STATUS", { httpStatus });
}

/** The system's error code (ECONNREFUSED, CERT_HAS_EXPIRED…) is the detail: a `systemError`, which pages say in words. */
function describeError(e: unknown): Failure {
  if (e instanceof InvalidWebhookUrlError) return e.failure;
  const code = (e as { code?: unknown }).code;
  const name = (e as { name?: unknown }).name;
  return failure("WEBHOOK_CONNECTION_FAILED", { detail: String(typeof code === "string" ? code : typeof name === "string" ? name : "Error").slice(0, 100) });
}

/** DNS lookups cannot be cancelled; stop waiting for one when the attempt's time is up. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
