import { NonPublicAddressError, type Resolver } from "@payaccept/domain";
import { signatureHeaders } from "./signature.ts";
import { InvalidWebhookUrlError, resolveTarget } from "./target.ts";

/** What one HTTP attempt came to. durationMs runs from the start (DNS included) to the response headers. */
export type AttemptOutcome =
  | { kind: "delivered"; httpStatus: number; durationMs: number }
  | { kind: "failed"; httpStatus: number | null; error: string; durationMs: number }
  | { kind: "blocked"; error: string; durationMs: number };

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
 * never read (the stream is cancelled), so a receiver cannot make us download anything.
 */
export async function sendWebhook(
  req: { url: string; body: string; secret: string },
  opts: SendOptions,
): Promise<AttemptOutcome> {
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
        ...signatureHeaders(req.body, req.secret, Math.floor(opts.now() / 1000)),
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
    if (e instanceof NonPublicAddressError) return { kind: "blocked", error: `blocked: ${e.message}`, durationMs };
    if (signal.aborted) return { kind: "failed", httpStatus: null, error: `no response within ${opts.timeoutMs} ms`, durationMs };
    return { kind: "failed", httpStatus: null, error: describeError(e), durationMs };
  }
}

function describeStatus(status: number): string {
  return status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}`;
}

function describeError(e: unknown): string {
  if (e instanceof InvalidWebhookUrlError) return e.message;
  const err = e as { code?: unknown; message?: unknown };
  const message = typeof err.message === "string" ? err.message : String(e);
  const text = typeof err.code === "string" && !message.startsWith(err.code) ? `${err.code}: ${message}` : message;
  return text.slice(0, 300);
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
