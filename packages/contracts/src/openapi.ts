import type {
  HeaderObject,
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
} from "openapi3-ts/oas31";
import { z } from "zod";
import {
  Balance,
  CreatePaymentRequest,
  CreateRefundRequest,
  CreatePayoutRequest,
  DeliveryIdParam,
  ErrorBody,
  ListPaymentsQuery,
  LookupPaymentQuery,
  Metadata,
  Payment,
  PaymentIdParam,
  PaymentListPage,
  Payout,
  PayoutList,
  PayoutsQuery,
  Refund,
  RefundList,
  TestWebhookResult,
  WebhookAttempt,
  WebhookBody,
  WebhookDelivery,
  WebhookDeliveryList,
} from "./api.ts";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, IdempotencyKey } from "./idempotency.ts";
import { FINAL_STATUSES, PAYMENT_STATUSES, ReturnUrl } from "./primitives.ts";
import { Receipt, ReceiptList, ReceiptRequest } from "./receipts.ts";

/**
 * The OpenAPI 3.1 description of the merchant API (spec §4–§7) and of the payment-result webhook
 * (§4.6, §5.2). Every schema is generated from the zod contracts the services validate with, so
 * the document cannot drift from the code; only the prose and the operation list are written here.
 */

type Meta = { id?: string; description?: string };

/**
 * A private registry rather than zod's global one: importing this module must not change what
 * z.toJSONSchema produces for anyone else.
 */
const docs = z.registry<Meta>();
docs.add(CreatePaymentRequest, { id: "CreatePaymentRequest", description: "Body of payment creation (§2.1). Unknown fields are ignored." });
docs.add(Payment, { id: "Payment", description: "A payment (§2.2). Every field is always present." });
docs.add(Refund, {
  id: "Refund",
  description:
    "A refund of a payment; a payment may have several partial ones. PENDING until the bank answers (usually at once), then SUCCEEDED or FAILED (failureReason says why: the bank declined it, or the balance could not cover it). The status set may grow.",
});
docs.add(CreateRefundRequest, {
  id: "CreateRefundRequest",
  description: "Body of a refund; may be omitted. Without amountKopecks the refund is of everything not yet refunded.",
});
docs.add(RefundList, { id: "RefundList", description: "A payment's refunds, oldest first." });
docs.add(PaymentListPage, { id: "PaymentListPage", description: "One page of payments, oldest to newest (§2.3)." });
docs.add(Balance, {
  id: "Balance",
  description: "The balance of the shop owner's whole account, in kopecks (§2.4). holdHour is Moscow time.",
});
docs.add(ReceiptRequest, {
  id: "ReceiptRequest",
  description:
    "Fiscal receipt of the payment (54-FZ, FFD 1.2). The items (priceKopecks × quantity, each rounded half up to a kopeck) must add up to amountKopecks exactly. taxation and vat fall back to the shop's defaults; a shop may require a receipt. See docs/receipts.md.",
});
docs.add(Receipt, {
  id: "Receipt",
  description:
    "A fiscal receipt: SALE (приход) once the payment is SUCCESS, REFUND (возврат прихода) for each refund. PENDING until the cash register confirms it (then `fiscal` holds ФД, ФП, ФН); FAILED when it could not be registered after its retries (support resends it).",
});
docs.add(ReceiptList, { id: "ReceiptList", description: "Receipts of a payment, oldest first." });
docs.add(WebhookBody, { id: "WebhookBody", description: "Body of the payment-result webhook (§2.5)." });
docs.add(ErrorBody, {
  id: "Error",
  description:
    "Every error response (§2.6). `error` is absent in some responses (429): rely on statusCode. `code` says what happened as a stable name from a fixed catalogue (more codes may be added: treat an unknown one by its statusCode) and `params` gives its figures, amounts in kopecks; `message` is English for people and may be reworded, so never parse it. A 400 has code VALIDATION_FAILED, `message` lists every problem and `params.issues` gives each as {path, issue, params, message}: `issue` is the validation rule broken (too_small, too_big, invalid_type, invalid_format, invalid_value, unrecognized_keys, custom…), its params the limits (minimum, maximum, format…), and a custom issue's `params.rule` names our own rule (RETURN_URL, LONE_SURROGATE, PROTO_KEY, METADATA_TOO_LARGE, UNKNOWN_STATUS, FROM_AFTER_TO…).",
});
docs.add(ErrorBody.shape.code, { description: "The reason: a stable machine-readable name (REFUND_EXCEEDS_REFUNDABLE, ORDER_ID_TAKEN, SERVICE_UNAVAILABLE…)." });
docs.add(ErrorBody.shape.params, { description: "The reason's figures, e.g. { refundKopecks, refundableKopecks, paymentKopecks, refundingKopecks }; {} when it has none." });
docs.add(CreatePayoutRequest, { id: "CreatePayoutRequest", description: "Body of a payout request: the amount to pay out of the available balance." });
docs.add(Payout, { id: "Payout", description: "A payout of the account's available balance to its bank account." });
docs.add(PayoutList, { id: "PayoutList", description: "One page of payouts, newest first; `hasMore` tells whether older ones follow." });
docs.add(WebhookAttempt, { id: "WebhookAttempt", description: "One attempt to deliver a webhook and the receiver's answer." });
docs.add(WebhookDelivery, {
  id: "WebhookDelivery",
  description: "One webhook (one final status of a payment) and every attempt to deliver it. `result` may gain values: accept unknown ones.",
});
docs.add(WebhookDeliveryList, { id: "WebhookDeliveryList", description: "A payment's webhook deliveries, newest first." });
docs.add(TestWebhookResult, {
  id: "TestWebhookResult",
  description: "What the shop's receiver answered to a test webhook (`test: true`, never stored as a delivery). `error` is null when it answered 2xx.",
});
// Refinements have no JSON Schema form, so their rules travel as descriptions.
docs.add(ReturnUrl, { description: "Link with scheme https, t.me or tg://, at most 300 characters." });
docs.add(Metadata, {
  description:
    "Any JSON object of at most 4 KB; echoed in the payment and the webhook, never sent to the provider. The key __proto__ (at any depth) and lone UTF-16 surrogates are refused with a 400.",
});
docs.add(WebhookBody.shape.status, {
  description: `Final status: ${FINAL_STATUSES.join(", ")}. The set may grow: accept unknown values with 200.`,
});
docs.add(WebhookBody.shape.id, { description: "Payment id; a test notification's id starts with `test-` and is not a UUID." });
docs.add(WebhookBody.shape.test, { description: "True for a test notification or a sandbox payment. Check its value, not its presence." });

const ref = (id: string): ReferenceObject => ({ $ref: `#/components/schemas/${id}` });

function jsonSchema(schema: z.ZodType, io: "input" | "output"): SchemaObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { metadata: docs, io, target: "draft-2020-12" });
  return rest as SchemaObject;
}

/**
 * Components are described as requests accept them ("input"): the response schemas have no
 * transforms, so both sides agree, and output mode would add additionalProperties: false, which
 * would forbid the additive fields a client must tolerate.
 */
function componentSchemas(): Record<string, SchemaObject> {
  const { schemas } = z.toJSONSchema(docs, {
    metadata: docs,
    io: "input",
    target: "draft-2020-12",
    uri: (id) => `#/components/schemas/${id}`,
  });
  // Each generated schema names its own dialect and location; inside the document both are the document's.
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...rest }]) => [id, rest as SchemaObject]),
  );
}

/**
 * Query and path values arrive as strings. Where the parsed value has a JSON Schema form (page →
 * integer 1..10000) the document shows that, with the default the schema itself applies; where it
 * has not (status → list of statuses) it shows the raw string.
 */
function parameterSchema(schema: z.ZodType): SchemaObject {
  let parsed: SchemaObject;
  try {
    parsed = jsonSchema(schema, "output");
  } catch {
    return jsonSchema(schema, "input");
  }
  const dflt = schema.safeParse(undefined);
  return dflt.success && dflt.data !== undefined ? { ...parsed, default: dflt.data } : parsed;
}

function parameters(where: "query" | "path", shape: Record<string, z.ZodType>, descriptions: Record<string, string>): ParameterObject[] {
  return Object.entries(shape).map(([name, schema]) => ({
    name,
    in: where,
    required: where === "path" || !schema.safeParse(undefined).success,
    description: descriptions[name],
    schema: parameterSchema(schema),
  }));
}

const integerHeader = (description: string): HeaderObject => ({ description, schema: jsonSchema(z.number().int().min(0), "input") });
const headers: Record<string, HeaderObject> = {
  RequestId: {
    description: "Id of this request (the inbound X-Request-Id when sane, else a new one). Quote it to support.",
    schema: jsonSchema(z.string(), "input"),
  },
  RateLimitLimit: integerHeader("Requests allowed per window for this key and method (§8)."),
  RateLimitRemaining: integerHeader("Requests left in the current window."),
  RateLimitReset: integerHeader("Seconds until the current window resets."),
  RetryAfter: integerHeader("Seconds to wait before trying again."),
  IdempotentReplayed: {
    description: `\`true\` when this is the stored answer to an earlier request with the same ${IDEMPOTENCY_KEY_HEADER}; absent on the first answer.`,
    required: false,
    schema: jsonSchema(z.literal("true"), "input"),
  },
};
const headerRef = (id: keyof typeof headers): ReferenceObject => ({ $ref: `#/components/headers/${id}` });
const commonHeaders = {
  "X-Request-Id": headerRef("RequestId"),
  "RateLimit-Limit": headerRef("RateLimitLimit"),
  "RateLimit-Remaining": headerRef("RateLimitRemaining"),
  "RateLimit-Reset": headerRef("RateLimitReset"),
};

const json = (schema: SchemaObject | ReferenceObject) => ({ "application/json": { schema } });

const errorResponse = (description: string, extraHeaders: Record<string, ReferenceObject> = {}): ResponseObject => ({
  description,
  headers: { ...commonHeaders, ...extraHeaders },
  content: json(ref("Error")),
});
const errors = {
  BadRequest: errorResponse("Validation failed (body, query or path id). `message` lists every problem at once."),
  Unauthorized: errorResponse("X-Api-Key missing or invalid, or the shop is not active. Always the same answer."),
  NotFound: errorResponse("No such payment in this shop (a payment of another shop is never visible)."),
  Conflict: errorResponse(
    `The request conflicts with the state of the payment, the balance or the shop's settings; or a request with the same ${IDEMPOTENCY_KEY_HEADER} is still in progress (retry after Retry-After seconds).`,
  ),
  IdempotencyKeyReused: errorResponse(
    `The ${IDEMPOTENCY_KEY_HEADER} was already used with another request (another method, path or body) in the last 24 hours. Use a new key for a new request.`,
  ),
  PayloadTooLarge: errorResponse("The body is larger than the gateway accepts (a valid request is a few KB)."),
  UnsupportedMediaType: errorResponse("The body is not declared as `Content-Type: application/json`."),
  TooManyRequests: errorResponse("Rate limit exceeded (§8). Wait Retry-After seconds.", { "Retry-After": headerRef("RetryAfter") }),
  ServerError: errorResponse(
    "Internal error: the outcome is unknown. Do not retry blindly: read the payment first (§7; on creation: look it up by orderId, create again only on 404).",
  ),
};
type ErrorName = keyof typeof errors;
const ERROR_STATUS: Record<ErrorName, string> = {
  BadRequest: "400",
  Unauthorized: "401",
  NotFound: "404",
  Conflict: "409",
  PayloadTooLarge: "413",
  UnsupportedMediaType: "415",
  IdempotencyKeyReused: "422",
  TooManyRequests: "429",
  ServerError: "5XX",
};

const idempotencyKeyParameter: ParameterObject = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: "header",
  required: false,
  description:
    "Makes the request safe to retry: 1–64 printable ASCII characters, unique per request, kept 24 hours per shop. The same key with the same body answers what the first request answered (status and body, with `Idempotent-Replayed: true`); with another method, path or body it is 422; while the first is still running, 409. A 5xx is not stored: retrying with the key runs the request again and never does its work twice.",
  schema: jsonSchema(IdempotencyKey, "input"),
};

type OperationSpec = {
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  parameters?: (ParameterObject | ReferenceObject)[];
  requestBody?: string;
  /** The body may be left out. */
  optionalBody?: boolean;
  success: { status: string; description: string; schema: SchemaObject | ReferenceObject };
  errors: ErrorName[];
};

function operation(op: OperationSpec, idempotent = false): OperationObject {
  const successHeaders = idempotent ? { ...commonHeaders, [IDEMPOTENT_REPLAYED_HEADER]: headerRef("IdempotentReplayed") } : commonHeaders;
  const responses: Record<string, ResponseObject | ReferenceObject> = {
    [op.success.status]: { description: op.success.description, headers: successHeaders, content: json(op.success.schema) },
  };
  const idempotencyErrors: ErrorName[] = idempotent ? ["BadRequest", "Conflict", "IdempotencyKeyReused"] : [];
  for (const e of [...op.errors, ...idempotencyErrors, "Unauthorized", "TooManyRequests", "ServerError"] as ErrorName[]) {
    responses[ERROR_STATUS[e]] = { $ref: `#/components/responses/${e}` };
  }
  const parameters = [...(op.parameters ?? []), ...(idempotent ? [{ $ref: "#/components/parameters/IdempotencyKey" }] : [])];
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: op.description,
    ...(parameters.length ? { parameters } : {}),
    ...(op.requestBody ? { requestBody: { required: !op.optionalBody, content: json(ref(op.requestBody)) } } : {}),
    responses,
  };
}

/** Every POST of the API takes an Idempotency-Key. */
const postOperation = (op: OperationSpec) => operation(op, true);

const idParameter = parameters("path", PaymentIdParam.shape, { id: "The payment's `id` (UUID). A malformed id gives 400." });
const deliveryIdParameter = parameters("path", DeliveryIdParam.shape, { deliveryId: "A delivery's `id` (UUID) from the payment's delivery list. A malformed id gives 400." });
const payoutListParameters = parameters("query", PayoutsQuery.shape, {
  limit: "Page size.",
  startingAfter: "The `id` of the last payout of the previous page: the page holds the payouts made before it.",
});

const listParameters = parameters(
  "query",
  { orderId: LookupPaymentQuery.shape.orderId.optional(), ...ListPaymentsQuery.shape },
  {
    orderId: "Lookup mode: the merchant's order number. When given, every other parameter is ignored and the answer is one Payment or 404.",
    from: "Start of the period on createdAt, inclusive (ISO 8601, UTC).",
    to: "End of the period on createdAt, inclusive. `from` later than `to` gives 400.",
    status: `Comma-separated statuses to keep, from: ${PAYMENT_STATUSES.join(", ")}.`,
    page: "Page number.",
    limit: "Page size.",
  },
);

const signatureHex = z.string().regex(/^[0-9a-f]{64}$/);
const signatureHeaders: ParameterObject[] = [
  {
    name: "X-Signature",
    in: "header",
    required: true,
    description: "Legacy scheme: HMAC-SHA256 (hex) of the raw body, keyed with the shop's signing secret.",
    schema: jsonSchema(signatureHex, "input"),
  },
  {
    name: "X-Timestamp",
    in: "header",
    required: true,
    description: "Unix send time in seconds. Recomputed on each retry; older than 5 minutes means a replay.",
    schema: jsonSchema(z.string().regex(/^\d+$/), "input"),
  },
  {
    name: "X-Signature-V2",
    in: "header",
    required: true,
    description: "Recommended scheme: HMAC-SHA256 (hex) of `{X-Timestamp}.{raw body}`, keyed with the signing secret.",
    schema: jsonSchema(signatureHex, "input"),
  },
];

export type OpenApiOptions = {
  /** The API base address, `/api` included (spec: `{base_url}`). Default: the relative `/api`. */
  serverUrl?: string;
};

export function buildOpenApiDocument(opts: OpenApiOptions = {}): OpenAPIObject {
  return {
    openapi: "3.1.0",
    info: {
      title: "Payment acceptance API",
      version: "1.0.0",
      description:
        "Create payments for orders, send buyers to the hosted payment page (`payUrl`), learn results from signed webhooks. Amounts are integer kopecks (RUB).",
    },
    servers: [{ url: opts.serverUrl ?? "/api", description: "Merchant API" }],
    security: [{ ApiKey: [] }],
    tags: [
      { name: "Payments", description: "Create, read, list, cancel and refund payments." },
      { name: "Balance", description: "The account balance and its payouts." },
      { name: "Webhooks", description: "Notifications the service sends to the shop's Webhook URL, and their delivery log." },
    ],
    paths: {
      "/v1/payments": {
        post: postOperation({
          operationId: "createPayment",
          tag: "Payments",
          summary: "Create a payment",
          description:
            "Creates a payment in status CREATED and returns it with payUrl. No money moves until the buyer pays on payUrl. The same orderId never creates a second payment: it gives 409.",
          requestBody: "CreatePaymentRequest",
          success: { status: "201", description: "Created.", schema: ref("Payment") },
          errors: ["BadRequest", "Conflict", "PayloadTooLarge", "UnsupportedMediaType"],
        }),
        get: operation({
          operationId: "listPayments",
          tag: "Payments",
          summary: "Find a payment by order number, or list payments",
          description:
            "With orderId: one Payment (not an array), or 404. Without: a PaymentListPage of payments ordered oldest to newest; pages are stable.",
          parameters: listParameters,
          success: {
            status: "200",
            description: "A Payment in lookup mode, a PaymentListPage in list mode.",
            schema: { oneOf: [ref("Payment"), ref("PaymentListPage")] },
          },
          errors: ["BadRequest", "NotFound"],
        }),
      },
      "/v1/payments/{id}": {
        get: operation({
          operationId: "getPayment",
          tag: "Payments",
          summary: "Get a payment by id",
          description: "Reads one payment of this shop.",
          parameters: idParameter,
          success: { status: "200", description: "The payment.", schema: ref("Payment") },
          errors: ["BadRequest", "NotFound"],
        }),
      },
      "/v1/payments/{id}/cancel": {
        post: postOperation({
          operationId: "cancelPayment",
          tag: "Payments",
          summary: "Cancel a payment before payment starts",
          description:
            "CREATED → CANCELED: payUrl stops accepting payment and one CANCELED webhook is sent; the orderId stays taken. Repeating it returns 200 again. 409 when the buyer has started paying (PENDING) or the payment is in another final status.",
          parameters: idParameter,
          success: { status: "200", description: "The canceled payment.", schema: ref("Payment") },
          errors: ["BadRequest", "NotFound", "Conflict"],
        }),
      },
      "/v1/payments/{id}/receipts": {
        get: operation({
          operationId: "listPaymentReceipts",
          tag: "Payments",
          summary: "List a payment's fiscal receipts",
          description:
            "The sale receipt and every refund receipt of the payment, oldest first; empty when it was created without a receipt or is not paid yet. A receipt appears within seconds of the event and turns REGISTERED once the cash register confirms it.",
          parameters: idParameter,
          success: { status: "200", description: "The receipts.", schema: ref("ReceiptList") },
          errors: ["BadRequest", "NotFound"],
        }),
      },
      "/v1/payments/{id}/refunds": {
        post: postOperation({
          operationId: "refundPayment",
          tag: "Payments",
          summary: "Refund a paid payment, whole or in part",
          description:
            "Returns amountKopecks (default: everything not yet refunded) to the buyer. Several partial refunds may add up to the payment's amount; the payment's refundedKopecks counts the SUCCEEDED ones, and when they reach amountKopecks the payment becomes REFUNDED and the usual REFUNDED webhook is sent (a partial refund sends no webhook). The refund's share of the net receipt (amount − commission, so the commission comes back in proportion) leaves the balance, first from the payment's own receipt while it is still frozen, then from available. 201 with the refund: SUCCEEDED, FAILED when the bank declined it (nothing was refunded; failureReason says why), or PENDING when the bank has not answered yet (it completes on its own; read GET …/refunds). 409 when the payment is not SUCCESS, the amount is above what is left to refund, or the balance cannot cover it; the message gives the amounts in rubles and kopecks. An Idempotency-Key header makes a retry return the first refund. On 5XX the outcome is unknown: read the refunds before refunding again.",
          parameters: idParameter,
          requestBody: "CreateRefundRequest",
          optionalBody: true,
          success: { status: "201", description: "The refund.", schema: ref("Refund") },
          errors: ["BadRequest", "NotFound", "Conflict", "PayloadTooLarge", "UnsupportedMediaType"],
        }),
        get: operation({
          operationId: "listRefunds",
          tag: "Payments",
          summary: "List a payment's refunds",
          description: "Every refund of the payment, oldest first, FAILED ones included.",
          parameters: idParameter,
          success: { status: "200", description: "The refunds.", schema: ref("RefundList") },
          errors: ["BadRequest", "NotFound"],
        }),
      },
      "/v1/payments/{id}/webhooks": {
        get: operation({
          operationId: "listPaymentWebhooks",
          tag: "Webhooks",
          summary: "List a payment's webhook deliveries",
          description: "Every webhook sent for the payment (one per final status) with each attempt and the receiver's answer, newest first. A payment of another shop is 404.",
          parameters: idParameter,
          success: { status: "200", description: "The deliveries.", schema: ref("WebhookDeliveryList") },
          errors: ["BadRequest", "NotFound"],
        }),
      },
      "/v1/webhooks/deliveries/{deliveryId}/resend": {
        post: postOperation({
          operationId: "resendWebhook",
          tag: "Webhooks",
          summary: "Send a webhook again",
          description:
            "Sends the delivery's stored body again with fresh signatures, as a new series of attempts on the usual schedule (also after the attempts were exhausted). A delivery of another shop is 404. Receivers must already handle repeats idempotently by (id, status).",
          parameters: deliveryIdParameter,
          success: { status: "200", description: "The delivery, its new series queued.", schema: ref("WebhookDelivery") },
          errors: ["NotFound"],
        }),
      },
      "/v1/webhooks/test": {
        post: postOperation({
          operationId: "sendTestWebhook",
          tag: "Webhooks",
          summary: "Send a test webhook",
          description:
            "Sends a signed webhook with `test: true` to the shop's Webhook URL at once and waits for the receiver's answer (up to the receiver timeout). Nothing is stored or retried. Without a Webhook URL the result says so in `error`.",
          success: { status: "200", description: "The receiver's answer.", schema: ref("TestWebhookResult") },
          errors: [],
        }),
      },
      "/v1/payouts": {
        post: postOperation({
          operationId: "createPayout",
          tag: "Balance",
          summary: "Pay out of the available balance",
          description:
            "Takes the amount out of the account's available balance at once (never more than available, also under concurrent requests: 409 names both amounts) and transfers it to the account's bank account. Send an Idempotency-Key to retry safely. Limit: 60 requests per minute per key and method, like the balance.",
          requestBody: "CreatePayoutRequest",
          success: { status: "201", description: "The payout.", schema: ref("Payout") },
          errors: ["PayloadTooLarge", "UnsupportedMediaType"],
        }),
        get: operation({
          operationId: "listPayouts",
          tag: "Balance",
          summary: "List payouts",
          description: "The account's payouts, newest first, a page at a time. Limit: 60 requests per minute per key, like the balance.",
          parameters: payoutListParameters,
          success: { status: "200", description: "One page of payouts.", schema: ref("PayoutList") },
          errors: ["BadRequest"],
        }),
      },
      "/v1/balance": {
        get: operation({
          operationId: "getBalance",
          tag: "Balance",
          summary: "Get the account balance",
          description: "The same figures as the dashboard's balance section. Limit: 60 requests per minute per key.",
          success: { status: "200", description: "The balance.", schema: ref("Balance") },
          errors: [],
        }),
      },
    },
    webhooks: {
      paymentResult: {
        post: {
          operationId: "paymentResultWebhook",
          tags: ["Webhooks"],
          summary: "Payment reached a final status",
          description:
            "Sent to the shop's Webhook URL on every transition into a final status. Verify a signature over the raw body before parsing. Handle idempotently by (id, status); reply 2xx within 5 seconds, then do slow work.",
          security: [],
          parameters: signatureHeaders,
          requestBody: { required: true, content: json(ref("WebhookBody")) },
          responses: {
            "2XX": { description: "Delivered. The body is not read." },
            default: {
              description:
                "Any other reply, a redirect or no reply within 5 s is a failed attempt; retried after 1 min, 5 min, 30 min, 2 h, 6 h and 24 h (7 attempts in all) with the same body.",
            },
          },
        },
      },
    },
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        ApiKey: {
          type: "apiKey",
          in: "header",
          name: "X-Api-Key",
          description: "The shop's API key, issued in the dashboard and shown once.",
        },
      },
      headers,
      parameters: { IdempotencyKey: idempotencyKeyParameter },
      responses: errors,
    },
  };
}
