/** Every failure the client reports. */
export abstract class PayacceptError extends Error {
  /** HTTP status, or null when no response arrived. */
  abstract readonly statusCode: number | null;
  /** Seconds the server asked to wait (Retry-After, sent with 429 and some 503), else null. */
  abstract readonly retryAfter: number | null;

  constructor(
    message: string,
    /** The server's X-Request-Id, else the one this client sent: quote it to support. */
    readonly requestId: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }

  /** True when the request may or may not have taken effect (a 5xx, or no response at all). */
  get outcomeUnknown(): boolean {
    return this.statusCode === null || this.statusCode >= 500;
  }
}

/** The server answered with an error (spec §2.6, §7). */
export class ApiError extends PayacceptError {
  constructor(
    readonly statusCode: number,
    /** Every reason the server gave (validation errors list all problems). */
    readonly messages: string[],
    /** Short status name; absent in some responses, such as 429. */
    readonly error: string | undefined,
    requestId: string,
    readonly retryAfter: number | null,
    /** What happened, as a stable name (REFUND_EXCEEDS_REFUNDABLE, ORDER_ID_TAKEN…): act on this, not on the messages. */
    readonly code: string | undefined = undefined,
    /** The code's figures (amounts in kopecks); for VALIDATION_FAILED, `issues`. */
    readonly params: Record<string, unknown> = {},
  ) {
    super(messages.join("; ") || `HTTP ${statusCode}`, requestId);
  }
}

/** No usable response: connection failure, timeout, or a body that is not the API's JSON. */
export class NetworkError extends PayacceptError {
  readonly statusCode = null;
  readonly retryAfter = null;
}

export function apiError(res: Response, body: unknown, requestId: string): ApiError {
  const b = (typeof body === "object" && body !== null ? body : {}) as { message?: unknown; error?: unknown; code?: unknown; params?: unknown };
  const messages = Array.isArray(b.message) ? b.message.map(String) : typeof b.message === "string" ? [b.message] : [];
  const params = typeof b.params === "object" && b.params !== null ? (b.params as Record<string, unknown>) : {};
  const code = typeof b.code === "string" ? b.code : undefined;
  return new ApiError(res.status, messages, typeof b.error === "string" ? b.error : undefined, requestId, retryAfterSeconds(res.headers.get("retry-after")), code, params);
}

/** Retry-After is either delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
function retryAfterSeconds(header: string | null): number | null {
  if (header === null || header.trim() === "") return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
