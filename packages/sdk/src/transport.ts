import { apiError, NetworkError, PayacceptError } from "./errors.ts";

export type TransportOptions = {
  /** The API base address with its `/api` prefix, e.g. `https://pay.example.com/api`. */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** A request not answered in full within this time counts as a lost response. Default 10 000. */
  timeoutMs?: number;
  /**
   * Retries after a lost response or a 5xx, for reads and for the keyed writes (every POST but
   * createPayment, which recovers by orderId). A 429 or a 409 with Retry-After is waited for as
   * asked, up to maxRetryDelayMs in all, whatever this count. 0 turns retrying off. Default 3.
   */
  maxRetries?: number;
  /** Backoff before the first retry, doubled each time, with jitter. Default 250. */
  retryDelayMs?: number;
  /**
   * The longest single wait. Backoff is capped at it; a Retry-After longer than it is not waited
   * out but reported (the ApiError carries retryAfter). Default 20 000.
   */
  maxRetryDelayMs?: number;
};

export type Call = {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string>;
  json?: unknown;
  /** Sent as Idempotency-Key, the same on every retry, so that a retried write takes effect once. */
  idempotencyKey?: string;
};

/** Which failures a call may be repeated after. */
export type RetryPolicy = (error: PayacceptError) => boolean;

/**
 * The request did nothing and the server asked to come back: a 429, or a 409 with Retry-After
 * (the key's first request is still running; a retry gets its answer). Any other 409 is a refusal.
 */
export const askedToWait: RetryPolicy = (e) => e.statusCode === 429 || (e.statusCode === 409 && e.retryAfter !== null);
/** A lost response or a 5xx may have done nothing: worth another try, like a request asked to wait. */
export const transient: RetryPolicy = (e) => e.outcomeUnknown || askedToWait(e);

export type Transport = {
  /** One call, repeated after the failures the policy allows (maxRetries, and maxRetryDelayMs of waits asked for). */
  send<T>(call: Call, policy?: RetryPolicy): Promise<T>;
};

export function createTransport(options: TransportOptions): Transport {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxRetries = options.maxRetries ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 250;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 20_000;

  async function exchange<T>(call: Call, requestId: string): Promise<T> {
    const { method, path, json } = call;
    const url = new URL(base + path);
    for (const [k, v] of Object.entries(call.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { "X-Api-Key": options.apiKey, "X-Request-Id": requestId, Accept: "application/json" };
    if (json !== undefined) headers["Content-Type"] = "application/json";
    if (call.idempotencyKey !== undefined) headers["Idempotency-Key"] = call.idempotencyKey;
    let res: Response;
    let text: string;
    try {
      res = await doFetch(url, { method, headers, body: json === undefined ? undefined : JSON.stringify(json), signal: AbortSignal.timeout(timeoutMs) });
      // Reading the body is part of the exchange: a connection lost here is a lost response too.
      text = await res.text();
    } catch (cause) {
      throw new NetworkError(`${method} ${path}: no response (${(cause as Error).message})`, requestId, { cause });
    }
    const answeredId = res.headers.get("x-request-id") ?? requestId;
    const body = parseJson(text);
    if (!res.ok) throw apiError(res, body, answeredId);
    if (body === undefined) throw new NetworkError(`${method} ${path}: HTTP ${res.status} without a JSON body`, answeredId);
    return body as T;
  }

  /** Milliseconds to wait before retry number `retry` (0-based), or null when the server asks for longer than we wait. */
  function pause(error: PayacceptError, retry: number): number | null {
    if (error.retryAfter !== null) return error.retryAfter * 1000 <= maxRetryDelayMs ? error.retryAfter * 1000 : null;
    // "Equal jitter": clients that failed together do not come back together, and none comes back at once.
    const ceiling = Math.min(maxRetryDelayMs, retryDelayMs * 2 ** retry);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  return {
    async send<T>(call: Call, policy: RetryPolicy = transient): Promise<T> {
      // One id for every try of the call: support follows one operation, however many tries it took.
      const requestId = crypto.randomUUID();
      let retries = 0;
      let waitedAsAsked = 0;
      for (;;) {
        try {
          return await exchange<T>(call, requestId);
        } catch (e) {
          if (!(e instanceof PayacceptError) || maxRetries === 0 || !policy(e)) throw e;
          // A server that asked to wait (429, or a key whose first request is still running: after a
          // gateway crash that lasts the key's lease, several seconds) is waited for up to
          // maxRetryDelayMs in all; other failures count against maxRetries.
          const asked = askedToWait(e);
          if (!asked && retries >= maxRetries) throw e;
          const wait = pause(e, retries);
          if (wait === null || (asked && waitedAsAsked + wait > maxRetryDelayMs)) throw e;
          if (asked) waitedAsAsked += wait;
          else retries++;
          await sleep(wait);
        }
      }
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
