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
  CapturePaymentRequest,
  CaptureReceipt,
  CreatePaymentRequest,
  CreateRefundRequest,
  CreatePayoutRequest,
  ErrorBody,
  Metadata,
  Payment,
  PaymentListPage,
  Payout,
  PayoutList,
  Refund,
  RefundList,
  SandboxOutcomeRequest,
  TestWebhookResult,
  WebhookAttempt,
  WebhookBody,
  WebhookDelivery,
  WebhookDeliveryList,
} from "./api.ts";
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_TTL_MS, IDEMPOTENT_REPLAYED_HEADER, IdempotencyKey } from "./idempotency.ts";
import { PAYMENT_EVENT_STATUSES } from "./events.ts";
import { type ApiFacts, type Fields, isIdempotent, type Operation, operations } from "./operations.ts";
import { PaymentMethodDetails, PaymentMethodList, SavedPaymentMethod } from "./payment-methods.ts";
import { FINAL_STATUSES, ReturnUrl, WEBHOOK_RETRY_JITTER } from "./primitives.ts";
import { Receipt, ReceiptList, ReceiptRequest } from "./receipts.ts";

/**
 * The OpenAPI 3.1 description of the merchant API (spec §4–§7) and of the payment-result webhook
 * (§4.6, §5.2). Every schema is generated from the zod contracts the services validate with, so
 * the document cannot drift from the code; the operations come from the table the gateway registers
 * its routes from (operations.ts), and the facts that depend on the configuration (limits, the
 * webhook schedule) from the running configuration (ApiFacts).
 */

type Meta = { id?: string; description?: string };

/**
 * A private registry rather than zod's global one: importing this module must not change what
 * z.toJSONSchema produces for anyone else.
 */
const docs = z.registry<Meta>();
docs.add(CreatePaymentRequest, { id: "CreatePaymentRequest", description: "Body of payment creation (§2.1). Unknown fields are ignored." });
docs.add(Payment, {
  id: "Payment",
  description:
    "A payment (§2.2). Every field of §2.2 and refundedKopecks is always present; the fields of saved methods, merchant-initiated charges and two-stage payments (customerId, savePaymentMethod, paymentMethod, merchantInitiated, capture, heldKopecks, captureDeadline, failureCode, failureReason, failureParams) only on a payment that uses them.",
});
docs.add(PaymentMethodDetails, { id: "PaymentMethodDetails", description: "The saved method a payment saved or charged: its id and what a buyer recognises (card brand, last 4 digits, expiry; or the SBP bank)." });
docs.add(SavedPaymentMethod, {
  id: "SavedPaymentMethod",
  description:
    "A card or SBP account a buyer agreed to save at a payment. Only an ACTIVE one can be charged (`paymentMethodId` on a create). The status set may grow: treat an unknown one as not chargeable.",
});
docs.add(PaymentMethodList, { id: "PaymentMethodList", description: "One page of saved methods, newest first; `hasMore` tells whether older ones follow." });
docs.add(CapturePaymentRequest, {
  id: "CapturePaymentRequest",
  description: "Body of a capture; may be omitted (the whole hold is taken). At most the amount held; the rest is released.",
});
docs.add(CaptureReceipt, {
  id: "CaptureReceipt",
  description: "The fiscal receipt's lines for what a partial capture takes: they must add up to the captured amount (customer and taxation stay the payment's).",
});
docs.add(SandboxOutcomeRequest, { id: "SandboxOutcomeRequest", description: "The outcome a sandbox payment is given from code, as a buyer or a bank would give it." });
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
    "Every error response (§2.6). `error` is absent in some responses (429): rely on statusCode. `code` says what happened as a stable name from a fixed catalogue (more codes may be added: treat an unknown one by its statusCode) and `params` gives its figures, amounts in kopecks; `message` is English for people and may be reworded, so never parse it. A 400 has code VALIDATION_FAILED, `message` lists every problem and `params.issues` gives each as {path, issue, params, message}: `issue` is the validation rule broken (too_small, too_big, invalid_type, invalid_format, invalid_value, unrecognized_keys, custom…), its params the limits (minimum, maximum, format…), and a custom issue's `params.rule` names our own rule (RETURN_URL, LONE_SURROGATE, NUL_CHARACTER, PROTO_KEY, METADATA_TOO_LARGE, UNKNOWN_STATUS, FROM_AFTER_TO…).",
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
docs.add(ReturnUrl, { description: "Link with scheme https://, t.me or tg://, at most 300 characters, without spaces or control characters (percent-encode them)." });
docs.add(Metadata, {
  description:
    "Any JSON object of at most 4 KB; echoed in the payment and the webhook, never sent to the provider. The key __proto__ (at any depth), lone UTF-16 surrogates, the character U+0000 and integers beyond ±(2^53 − 1) (send those as strings) are refused with a 400.",
});
docs.add(WebhookBody.shape.status, {
  description: `Final status: ${FINAL_STATUSES.join(", ")}. The set may grow: accept unknown values with 200. Shops that hold payments or save methods also get ${PAYMENT_EVENT_STATUSES.filter((s) => !(FINAL_STATUSES as readonly string[]).includes(s)).join(", ")}.`,
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
  // The two below come with some answers of their status only, so they are not required.
  RetryAfterInProgress: { ...integerHeader(`Seconds to wait before retrying; sent when a request with the same ${IDEMPOTENCY_KEY_HEADER} is still in progress.`), required: false },
  AcceptEncoding: {
    description: "The content codings a request body may have: only `identity` (send it uncompressed); sent when the body had a Content-Encoding.",
    required: false,
    schema: jsonSchema(z.literal("identity"), "input"),
  },
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

/** 60000 → "1 min", 7200000 → "2 h": the largest unit that divides the duration. */
function shortDuration(ms: number): string {
  const units: [number, string][] = [
    [3_600_000, "h"],
    [60_000, "min"],
    [1000, "s"],
  ];
  const [size, name] = units.find(([size]) => ms % size === 0 && ms >= size) ?? [1, "ms"];
  return `${ms / size} ${name}`;
}

/** 5000 → "5 seconds", 86400000 → "24 hours". */
function spokenDuration(ms: number): string {
  const [count, unit] = shortDuration(ms).split(" ") as [string, string];
  const word = { h: "hour", min: "minute", s: "second", ms: "millisecond" }[unit]!;
  return `${count} ${word}${count === "1" ? "" : "s"}`;
}

const inWords = (items: string[]) => (items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`);

function retrySchedule(delaysMs: readonly number[]): string {
  if (delaysMs.length === 0) return "it is not retried (one attempt in all)";
  const jitter = `each pause up to ${Math.round(WEBHOOK_RETRY_JITTER * 100)} % longer at random, never shorter`;
  return `retried after ${inWords(delaysMs.map(shortDuration))} (${jitter}; ${delaysMs.length + 1} attempts in all) with the same body`;
}

const bodySize = (bytes: number) => (bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`);

const errorResponse = (description: string, extraHeaders: Record<string, ReferenceObject> = {}): ResponseObject => ({
  description,
  headers: { ...commonHeaders, ...extraHeaders },
  content: json(ref("Error")),
});
const errorResponses = (facts: ApiFacts) => ({
  BadRequest: errorResponse("Validation failed (body, query or path id). `message` lists every problem at once."),
  Unauthorized: errorResponse("X-Api-Key missing or invalid, or the shop is not active. Always the same answer."),
  NotFound: errorResponse("No such payment in this shop (a payment of another shop is never visible)."),
  Conflict: errorResponse(
    `The request conflicts with the state of the payment, the balance or the shop's settings; or a request with the same ${IDEMPOTENCY_KEY_HEADER} is still in progress (retry after Retry-After seconds).`,
    { "Retry-After": headerRef("RetryAfterInProgress") },
  ),
  IdempotencyKeyReused: errorResponse(
    `The ${IDEMPOTENCY_KEY_HEADER} was already used with another request (another method, path or body) in the last ${spokenDuration(IDEMPOTENCY_TTL_MS)}. Use a new key for a new request.`,
  ),
  PayloadTooLarge: errorResponse(`The body is larger than the gateway accepts, ${bodySize(facts.maxBodyBytes)} (a valid request is a few KB).`),
  UnsupportedMediaType: errorResponse(
    "The body is not declared as `Content-Type: application/json`, or it is sent with a `Content-Encoding` (send it uncompressed; that answer carries `Accept-Encoding: identity`).",
    { "Accept-Encoding": headerRef("AcceptEncoding") },
  ),
  TooManyRequests: errorResponse(
    `Rate limit exceeded (§8): the operation's own limit per API key (in its description), or ${facts.rateLimitsPerMinute.perIp} requests per minute from one client address over the whole API. Wait Retry-After seconds.`,
    { "Retry-After": headerRef("RetryAfter") },
  ),
  ServerError: errorResponse(
    "Internal error: the outcome is unknown. Do not retry blindly: read the payment first (§7; on creation: look it up by orderId, create again only on 404).",
  ),
});
type ErrorName = keyof ReturnType<typeof errorResponses>;
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

/** What the Idempotency-Key does, with what a twin of a request still running gets in the middle. */
const idempotencyKeyText = (twin: string) =>
  `Makes the request safe to retry: 1–64 printable ASCII characters, unique per request, kept ${spokenDuration(IDEMPOTENCY_TTL_MS)} per shop. The same key with the same body answers what the first request answered (status and body, with \`Idempotent-Replayed: true\`); with another method, path or body it is 422; ${twin} A 5xx is not stored: retrying with the key runs the request again and never does its work twice.`;

const idempotencyKeyParameter: ParameterObject = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: "header",
  required: false,
  description: idempotencyKeyText("while the first is still running, 409."),
  schema: jsonSchema(IdempotencyKey, "input"),
};

/**
 * The operation's Idempotency-Key: the shared parameter, its description replaced (a Reference
 * Object's own `description`, OpenAPI 3.1) where the service keeps the key with its write, whose
 * twin waits for the first answer instead.
 */
function idempotencyKeyOf(op: Operation): ReferenceObject {
  const $ref = "#/components/parameters/IdempotencyKey";
  if (!op.keyKeptWithWrite) return { $ref };
  const { which } = op.keyKeptWithWrite;
  return { $ref, description: idempotencyKeyText(`while the first is still running, ${which} waits for its answer and gets it as a replay; any other request is 409.`) };
}

/** A component's reference, or the schema itself for one the registry does not name. */
function schemaOf(schema: z.ZodType): SchemaObject | ReferenceObject {
  const id = docs.get(schema)?.id;
  return id ? ref(id) : jsonSchema(schema, "input");
}

/**
 * The answers an operation can give follow from its shape: whatever is validated can be a 400, a
 * body can also be too large or of another type, an Idempotency-Key can meet a twin (409) or
 * another request (422), and every operation can be 401, 429 and 5XX.
 */
function errorsOf(op: Operation): ErrorName[] {
  return [
    ...(op.params || op.query || op.body ? (["BadRequest"] as const) : []),
    ...(op.body ? (["PayloadTooLarge", "UnsupportedMediaType"] as const) : []),
    ...op.refusals,
    ...(isIdempotent(op) ? (["BadRequest", "Conflict", "IdempotencyKeyReused"] as const) : []),
    "Unauthorized",
    "TooManyRequests",
    "ServerError",
  ];
}

function rateLimitSentence(op: Operation, facts: ApiFacts): string {
  return `Limit: ${facts.rateLimitsPerMinute[op.rateLimit]} requests per minute per API key for this operation.`;
}

function operationObject(id: string, op: Operation, facts: ApiFacts): OperationObject {
  const idempotent = isIdempotent(op);
  const successHeaders = idempotent ? { ...commonHeaders, [IDEMPOTENT_REPLAYED_HEADER]: headerRef("IdempotentReplayed") } : commonHeaders;
  const success = op.success.schema;
  const responses: Record<string, ResponseObject | ReferenceObject> = {
    [op.success.status]: {
      description: op.success.description,
      headers: successHeaders,
      content: json(Array.isArray(success) ? { oneOf: success.map(schemaOf) } : schemaOf(success as z.ZodType)),
    },
  };
  for (const e of errorsOf(op)) responses[ERROR_STATUS[e]] = { $ref: `#/components/responses/${e}` };
  const fieldsOf = (where: "path" | "query", f: Fields | undefined) => (f ? parameters(where, f.shape, f.describe) : []);
  const parameterList = [
    ...fieldsOf("path", op.params),
    ...fieldsOf("query", op.query),
    ...(idempotent ? [idempotencyKeyOf(op)] : []),
  ];
  return {
    operationId: id,
    tags: [op.tag],
    summary: op.summary,
    description: `${op.description} ${rateLimitSentence(op, facts)}`,
    ...(parameterList.length ? { parameters: parameterList } : {}),
    ...(op.body ? { requestBody: { required: !op.body.optional, content: json(schemaOf(op.body.schema)) } } : {}),
    responses,
  };
}

function paths(facts: ApiFacts): Record<string, Record<string, OperationObject>> {
  const items: Record<string, Record<string, OperationObject>> = {};
  for (const [id, op] of Object.entries(operations) as [string, Operation][]) {
    (items[op.path] ??= {})[op.method] = operationObject(id, op, facts);
  }
  return items;
}

const signatureHex = z.string().regex(/^[0-9a-f]{64}$/);
const signatureHeaders: ParameterObject[] = [
  {
    name: "X-Signature",
    in: "header",
    required: true,
    description:
      "Legacy scheme: HMAC-SHA256 (hex) of the raw body, keyed with the shop's signing secret (while a rotated secret's overlap lasts, the previous secret).",
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
    description:
      "Recommended scheme: HMAC-SHA256 (hex) of `{X-Timestamp}.{raw body}`, keyed with the signing secret (while a rotated secret's overlap lasts, the previous secret).",
    schema: jsonSchema(signatureHex, "input"),
  },
  {
    name: "Payaccept-Signature",
    in: "header",
    required: true,
    description:
      "`t={X-Timestamp},v1={hex}[,v1={hex}]`, Stripe's Stripe-Signature format: one v1 per live signing secret, each the HMAC-SHA256 (hex) of `{t}.{raw body}`. Two while a rotated secret's overlap lasts (the new secret's and the previous one's), so either secret verifies; one otherwise.",
    schema: jsonSchema(z.string().regex(/^t=\d+(,v1=[0-9a-f]{64})+$/), "input"),
  },
];


export type OpenApiOptions = {
  /** The API base address, `/api` included (spec: `{base_url}`). Default: the relative `/api`. */
  serverUrl?: string;
};

export function buildOpenApiDocument(facts: ApiFacts, opts: OpenApiOptions = {}): OpenAPIObject {
  const replyWithin = facts.webhookTimeoutMs;
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
      { name: "Payments", description: "Create, read, list, cancel and refund payments; capture or void a held one." },
      { name: "Payment methods", description: "Cards and SBP accounts buyers agreed to save, which the shop charges without them." },
      { name: "Sandbox", description: "Test helpers: sandbox payments completed from code." },
      { name: "Balance", description: "The account balance and its payouts." },
      { name: "Webhooks", description: "Notifications the service sends to the shop's Webhook URL, and their delivery log." },
    ],
    paths: paths(facts),
    webhooks: {
      paymentResult: {
        post: {
          operationId: "paymentResultWebhook",
          tags: ["Webhooks"],
          summary: "Payment reached a final status",
          description: `Sent to the shop's Webhook URL on every transition into a final status. Verify a signature over the raw body before parsing. Handle idempotently by (id, status); reply 2xx within ${spokenDuration(replyWithin)}, then do slow work.`,
          security: [],
          parameters: signatureHeaders,
          requestBody: { required: true, content: json(ref("WebhookBody")) },
          responses: {
            "2XX": { description: "Delivered. The body is not read." },
            default: {
              description: `Any other reply, a redirect or no reply within ${shortDuration(replyWithin)} is a failed attempt; ${retrySchedule(facts.webhookRetryDelaysMs)}.`,
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
      responses: errorResponses(facts),
    },
  };
}
