import type { Balance, CreatePaymentInput, Payment, PaymentListPage, PaymentStatus, ReceiptList } from "@payaccept/contracts";

/**
 * The merchant's typed client for the payment-acceptance API. It depends on nothing of ours at
 * run time (the contracts are imported for their types only), so it can be vendored as is.
 */

export type ClientOptions = {
  /** The API base address with its `/api` prefix, e.g. `https://pay.example.com/api`. */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** A request not answered in full within this time counts as a lost response. Default 10 000. */
  timeoutMs?: number;
  /** Look-up-then-create rounds createPayment makes after an unknown outcome. Default 3. */
  recoveryAttempts?: number;
  /** Pause before the first round, doubled each round; a longer Retry-After wins. Default 250. */
  recoveryDelayMs?: number;
};

export type ListPaymentsParams = {
  from?: Date | string;
  to?: Date | string;
  status?: PaymentStatus | PaymentStatus[];
  page?: number;
  limit?: number;
};

/** Every failure the client reports. */
export abstract class PayacceptError extends Error {
  /** HTTP status, or null when no response arrived. */
  abstract readonly statusCode: number | null;
  /** Seconds the server asked to wait (429), else null. */
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
  ) {
    super(messages.join("; ") || `HTTP ${statusCode}`, requestId);
  }
}

/** No usable response: connection failure, timeout, or a body that is not the API's JSON. */
export class NetworkError extends PayacceptError {
  readonly statusCode = null;
  readonly retryAfter = null;
}

export type PayacceptClient = ReturnType<typeof createClient>;

export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const recoveryAttempts = options.recoveryAttempts ?? 3;
  const recoveryDelayMs = options.recoveryDelayMs ?? 250;

  async function request<T>(method: "GET" | "POST", path: string, init: { query?: Record<string, string>; json?: unknown } = {}): Promise<T> {
    const sentId = crypto.randomUUID();
    const url = new URL(base + path);
    for (const [k, v] of Object.entries(init.query ?? {})) url.searchParams.set(k, v);
    const headers: Record<string, string> = { "X-Api-Key": options.apiKey, "X-Request-Id": sentId, Accept: "application/json" };
    if (init.json !== undefined) headers["Content-Type"] = "application/json";
    let res: Response;
    let text: string;
    try {
      res = await doFetch(url, {
        method,
        headers,
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
        signal: AbortSignal.timeout(timeoutMs),
      });
      // Reading the body is part of the exchange: a connection lost here is a lost response too.
      text = await res.text();
    } catch (cause) {
      throw new NetworkError(`${method} ${path}: no response (${(cause as Error).message})`, sentId, { cause });
    }
    const requestId = res.headers.get("x-request-id") ?? sentId;
    const body = parseJson(text);
    if (!res.ok) throw apiError(res, body, requestId);
    if (body === undefined) throw new NetworkError(`${method} ${path}: HTTP ${res.status} without a JSON body`, requestId);
    return body as T;
  }

  const findPaymentByOrderId = async (orderId: string): Promise<Payment | null> => {
    try {
      return await request<Payment>("GET", "/v1/payments", { query: { orderId } });
    } catch (e) {
      if (e instanceof ApiError && e.statusCode === 404) return null;
      throw e;
    }
  };

  const postPayment = (req: CreatePaymentInput) => request<Payment>("POST", "/v1/payments", { json: req });

  /** A 409 on a repeated creation means an earlier attempt did land after all: that payment is ours. */
  const createOrAdopt = (req: CreatePaymentInput) =>
    postPayment(req).catch(async (e) => {
      const landed = e instanceof ApiError && e.statusCode === 409 ? await findPaymentByOrderId(req.orderId) : null;
      if (landed) return landed;
      throw e;
    });

  return {
    /**
     * Creates a payment. After a 5xx or a lost response the outcome is unknown, so it follows the
     * spec's recovery (§7): look the payment up by orderId, use it if found, else create it again
     * with the same orderId, which the server never turns into a second payment.
     */
    async createPayment(req: CreatePaymentInput): Promise<Payment> {
      let last: PayacceptError;
      try {
        return await postPayment(req);
      } catch (e) {
        if (!(e instanceof PayacceptError && e.outcomeUnknown)) throw e;
        last = e;
      }
      for (let round = 0; round < recoveryAttempts; round++) {
        await sleep(Math.max(recoveryDelayMs * 2 ** round, (last.retryAfter ?? 0) * 1000));
        try {
          return (await findPaymentByOrderId(req.orderId)) ?? (await createOrAdopt(req));
        } catch (e) {
          // Throttling during recovery does not settle anything either: wait and look again.
          if (!(e instanceof PayacceptError && (e.outcomeUnknown || e.statusCode === 429))) throw e;
          last = e;
        }
      }
      throw last;
    },

    getPayment: (id: string) => request<Payment>("GET", `/v1/payments/${encodeURIComponent(id)}`),

    /** The payment with this order number, or null when the shop has none. */
    findPaymentByOrderId,

    listPayments: (params: ListPaymentsParams = {}) => request<PaymentListPage>("GET", "/v1/payments", { query: listQuery(params) }),

    /** Cancels a payment the buyer has not started paying; repeating it is harmless. */
    cancelPayment: (id: string) => request<Payment>("POST", `/v1/payments/${encodeURIComponent(id)}/cancel`),

    getBalance: () => request<Balance>("GET", "/v1/balance"),

    /** The payment's fiscal receipts (sale, refunds), oldest first: docs/receipts.md. */
    receipts: (paymentId: string) => request<ReceiptList>("GET", `/v1/payments/${encodeURIComponent(paymentId)}/receipts`),
  };
}

function listQuery(p: ListPaymentsParams): Record<string, string> {
  const q: Record<string, string> = {};
  const iso = (d: Date | string) => (d instanceof Date ? d.toISOString() : d);
  if (p.from !== undefined) q.from = iso(p.from);
  if (p.to !== undefined) q.to = iso(p.to);
  if (p.status !== undefined) q.status = [p.status].flat().join(",");
  if (p.page !== undefined) q.page = String(p.page);
  if (p.limit !== undefined) q.limit = String(p.limit);
  return q;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function apiError(res: Response, body: unknown, requestId: string): ApiError {
  const b = (typeof body === "object" && body !== null ? body : {}) as { message?: unknown; error?: unknown };
  const messages = Array.isArray(b.message) ? b.message.map(String) : typeof b.message === "string" ? [b.message] : [];
  return new ApiError(res.status, messages, typeof b.error === "string" ? b.error : undefined, requestId, retryAfterSeconds(res.headers.get("retry-after")));
}

/** Retry-After is either delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
function retryAfterSeconds(header: string | null): number | null {
  if (header === null || header.trim() === "") return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
