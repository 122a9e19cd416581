import type {
  Balance,
  CapturePaymentRequest,
  CreatePaymentInput,
  CreatePayoutRequest,
  CreateRefundRequest,
  Payment,
  PaymentListPage,
  PaymentMethodList,
  PaymentStatus,
  Payout,
  PayoutList,
  ReceiptList,
  Refund,
  RefundList,
  SandboxOutcomeRequest,
  SavedPaymentMethod,
  TestWebhookResult,
  WebhookDelivery,
  WebhookDeliveryList,
} from "@payaccept/contracts";
import { ApiError, PayacceptError } from "./errors.ts";
import { askedToWait, createTransport, sleep, transient, type Call, type TransportOptions } from "./transport.ts";

/**
 * The merchant's typed client for the payment-acceptance API. It depends on nothing of ours at
 * run time (the contracts are imported for their types only), so it builds to plain JavaScript.
 */

export type ClientOptions = TransportOptions & {
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
  /** 1..100, default 20 (the iterator asks for 100). */
  limit?: number;
};

export type ListPayoutsParams = {
  /** 1..100. */
  limit?: number;
  /** A payout id from the previous page: the page continues after it. */
  startingAfter?: string;
};

export type ListPaymentMethodsParams = {
  /** Only the methods saved at payments created with this customerId. */
  customerId?: string;
  /** 1..100, default 20 (the iterator asks for 100). */
  limit?: number;
  /** A method id from the previous page: the page holds the methods saved before it. */
  startingAfter?: string;
};

export type WriteOptions = {
  /**
   * Sent as the Idempotency-Key header (1–64 printable ASCII characters). Give your own, derived
   * from your operation (say `refund-<orderId>-1`), to make a retry after a crash of your process
   * safe too; without one the client makes one per call and uses it on each of its retries.
   */
  idempotencyKey?: string;
};

export type PayacceptClient = ReturnType<typeof createClient>;

const ITERATOR_PAGE_SIZE = 100;

export function createClient(options: ClientOptions) {
  const { send } = createTransport(options);
  const recoveryAttempts = options.recoveryAttempts ?? 3;
  const recoveryDelayMs = options.recoveryDelayMs ?? 250;

  const keyOf = (opts: WriteOptions) => opts.idempotencyKey ?? crypto.randomUUID();
  /** A POST with an idempotency key, so that it is safe to repeat. */
  const write = <T>(path: string, json: unknown, opts: WriteOptions = {}) => send<T>({ method: "POST", path, json, idempotencyKey: keyOf(opts) });

  const lookup = async (orderId: string, retried: boolean): Promise<Payment | null> => {
    const call: Call = { method: "GET", path: "/v1/payments", query: { orderId } };
    try {
      return await send<Payment>(call, retried ? transient : () => false);
    } catch (e) {
      if (e instanceof ApiError && e.statusCode === 404) return null;
      throw e;
    }
  };

  const listPayments = (params: ListPaymentsParams = {}) => send<PaymentListPage>({ method: "GET", path: "/v1/payments", query: listQuery(params) });

  const listPayouts = (params: ListPayoutsParams = {}) => send<PayoutList>({ method: "GET", path: "/v1/payouts", query: definedStrings(params) });

  const paymentPath = (id: string) => `/v1/payments/${encodeURIComponent(id)}`;
  const methodPath = (id: string) => `/v1/payment-methods/${encodeURIComponent(id)}`;

  const listPaymentMethods = (params: ListPaymentMethodsParams = {}) => send<PaymentMethodList>({ method: "GET", path: "/v1/payment-methods", query: definedStrings(params) });

  /** Every item of a cursor-paged list (payouts, saved methods), newest first, following `startingAfter`. */
  async function* following<T extends { id: string }>(list: (startingAfter: string | undefined) => Promise<{ items: T[]; hasMore: boolean }>): AsyncGenerator<T> {
    let startingAfter: string | undefined;
    for (;;) {
      const page = await list(startingAfter);
      yield* page.items;
      startingAfter = page.items.at(-1)?.id;
      if (!page.hasMore || startingAfter === undefined) return;
    }
  }

  return {
    /**
     * Creates a payment: with `savePaymentMethod` (and a `customerId`) the buyer is asked on the
     * payment page to save the method; with `paymentMethodId` it charges a saved method now,
     * without the buyer (the outcome arrives as for any payment; FAILED carries `failureCode`);
     * with `capture: false` the card's money is held until capturePayment or cancelPayment.
     * After a 5xx or a lost response the outcome is unknown, so it follows the
     * spec's recovery (§7): look the payment up by orderId, use it if found, else create it again
     * with the same orderId (and the same Idempotency-Key), which never makes a second payment.
     * A 429, or a 409 asking to wait, is waited out and retried like any other call.
     */
    async createPayment(req: CreatePaymentInput, opts: WriteOptions = {}): Promise<Payment> {
      const call: Call = { method: "POST", path: "/v1/payments", json: req, idempotencyKey: keyOf(opts) };
      // A 409 on a repeated creation means an earlier attempt did land after all: that payment is ours.
      const createOrAdopt = () =>
        send<Payment>(call, () => false).catch(async (e) => {
          const landed = e instanceof ApiError && e.statusCode === 409 ? await lookup(req.orderId, false) : null;
          if (landed) return landed;
          throw e;
        });
      let last: PayacceptError;
      try {
        return await send<Payment>(call, askedToWait);
      } catch (e) {
        if (!(e instanceof PayacceptError && e.outcomeUnknown)) throw e;
        last = e;
      }
      for (let round = 0; round < recoveryAttempts; round++) {
        await sleep(Math.max(recoveryDelayMs * 2 ** round, (last.retryAfter ?? 0) * 1000));
        try {
          return (await lookup(req.orderId, false)) ?? (await createOrAdopt());
        } catch (e) {
          // Throttling, or the first try still in progress, settles nothing either: wait and look again.
          if (!(e instanceof PayacceptError && transient(e))) throw e;
          last = e;
        }
      }
      throw last;
    },

    getPayment: (id: string) => send<Payment>({ method: "GET", path: paymentPath(id) }),

    /** The payment with this order number, or null when the shop has none. */
    findPaymentByOrderId: (orderId: string) => lookup(orderId, true),

    listPayments,

    /**
     * Every payment matching the filter, page after page (oldest first, as the API orders them).
     * A payment that leaves a status filter while the pages are read can shift a later page:
     * filter by time, not by a status that may change, when completeness matters.
     */
    async *iteratePayments(params: Omit<ListPaymentsParams, "page"> = {}): AsyncGenerator<Payment> {
      const seen = new Set<string>();
      for (let page = 1; ; page++) {
        const result = await listPayments({ limit: ITERATOR_PAGE_SIZE, ...params, page });
        for (const payment of result.items) {
          if (seen.has(payment.id)) continue;
          seen.add(payment.id);
          yield payment;
        }
        if (result.items.length === 0 || page * result.pageSize >= result.total) return;
      }
    },

    /**
     * Cancels a payment the buyer has not started paying, or voids an AUTHORIZED hold (the money is
     * released, the payment CANCELED); repeating it is harmless.
     */
    cancelPayment: (id: string, opts?: WriteOptions) => write<Payment>(`${paymentPath(id)}/cancel`, undefined, opts),

    /**
     * Takes an AUTHORIZED hold: all of it, or `amountKopecks` of it (the rest is released); a partial
     * capture of a payment with a fiscal receipt gives the `receipt.items` of what was sold. The
     * payment becomes SUCCESS with the captured amount; repeating the same capture is harmless.
     */
    capturePayment: (id: string, req: CapturePaymentRequest = {}, opts?: WriteOptions) => write<Payment>(`${paymentPath(id)}/capture`, req, opts),

    /** A sandbox shop's test helper: completes a payment, charge or hold as the buyer or the bank would, with the same webhooks. */
    completeSandboxPayment: (id: string, req: SandboxOutcomeRequest, opts?: WriteOptions) =>
      write<Payment>(`/v1/sandbox/payments/${encodeURIComponent(id)}/outcome`, req, opts),

    /** A saved method as it stands now: ACTIVE, EXPIRED or REVOKED. */
    getPaymentMethod: (id: string) => send<SavedPaymentMethod>({ method: "GET", path: methodPath(id) }),

    listPaymentMethods,

    /** Every saved method of the shop (of one buyer with `customerId`), newest first. */
    iteratePaymentMethods: (params: Omit<ListPaymentMethodsParams, "startingAfter"> = {}): AsyncGenerator<SavedPaymentMethod> =>
      following((startingAfter) => listPaymentMethods({ limit: ITERATOR_PAGE_SIZE, ...params, startingAfter })),

    /** Revokes a saved method: every later charge with it is refused. Repeating it is harmless. */
    revokePaymentMethod: (id: string, opts?: WriteOptions) => write<SavedPaymentMethod>(`${methodPath(id)}/revoke`, undefined, opts),

    getBalance: () => send<Balance>({ method: "GET", path: "/v1/balance" }),

    /** Refunds a SUCCESS payment, in full by default or partly; several partial refunds may follow each other. */
    createRefund: (paymentId: string, req: CreateRefundRequest = {}, opts?: WriteOptions) => write<Refund>(`${paymentPath(paymentId)}/refunds`, req, opts),

    listRefunds: (paymentId: string) => send<RefundList>({ method: "GET", path: `${paymentPath(paymentId)}/refunds` }),

    /** Pays out of the available balance to the account's bank details. */
    createPayout: (req: CreatePayoutRequest, opts?: WriteOptions) => write<Payout>("/v1/payouts", req, opts),

    listPayouts,

    /** One payout: PENDING, SENT (its payment order went to the bank), PAID, or FAILED / RETURNED with the money back on the balance. */
    getPayout: (id: string) => send<Payout>({ method: "GET", path: `/v1/payouts/${encodeURIComponent(id)}` }),

    /** Every payout of the account, newest first, following the pages' cursor. */
    iteratePayouts: (params: Omit<ListPayoutsParams, "startingAfter"> = {}): AsyncGenerator<Payout> =>
      following((startingAfter) => listPayouts({ limit: ITERATOR_PAGE_SIZE, ...params, startingAfter })),

    /** The payment's webhook deliveries, with every attempt. */
    listPaymentWebhooks: (paymentId: string) => send<WebhookDeliveryList>({ method: "GET", path: `${paymentPath(paymentId)}/webhooks` }),

    /** Sends a delivery again: same body, fresh signatures, a new series of attempts. */
    resendWebhookDelivery: (deliveryId: string, opts?: WriteOptions) =>
      write<WebhookDelivery>(`/v1/webhooks/deliveries/${encodeURIComponent(deliveryId)}/resend`, undefined, opts),

    /** Sends a test notification to the shop's webhook URL now and reports how it went. */
    sendTestWebhook: (opts?: WriteOptions) => write<TestWebhookResult>("/v1/webhooks/test", undefined, opts),

    /** The payment's fiscal receipts (sale, refunds), oldest first: docs/receipts.md. */
    listReceipts: (paymentId: string) => send<ReceiptList>({ method: "GET", path: `${paymentPath(paymentId)}/receipts` }),
  };
}

/** A query of the parameters given, as strings. */
function definedStrings(params: Record<string, string | number | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])));
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
