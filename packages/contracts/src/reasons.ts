import { z } from "zod";

/**
 * The catalogue of every refusal and failure our services report (docs/errors.md): each reason
 * has one transport code (which decides the HTTP status), the kinds of its parameters and the
 * English template the API's `message` is made from. Pages translate the reason with its
 * parameters from their own tables; nothing anywhere reads the English text back.
 *
 * Parameter kinds say how a page shows a value: `kopecks` as money, `status` and `method` by
 * their names in the page's language, `service` by the service's name, `systemError` (a socket's
 * or TLS error code: ECONNREFUSED, CERT_HAS_EXPIRED…) in words with the code after them, the rest
 * as they are; `statementProblem` (STATEMENT_PROBLEMS) in words.
 */
export const PARAM_KINDS = ["kopecks", "int", "text", "status", "method", "service", "systemError", "issues", "statementProblem"] as const;
export type ParamKind = (typeof PARAM_KINDS)[number];

/** What a `service` parameter names: the first segment of an RPC subject, or a store the gateway needs. */
export const SERVICE_NAMES = ["payments", "balance", "webhooks", "directory", "dashboard", "receipts", "idempotency"] as const;

/**
 * Why a file is not a bank statement we read (STATEMENT_MALFORMED, STATEMENT_LINE_MALFORMED), in
 * the API's English; pages say each in their language.
 */
export const STATEMENT_PROBLEMS = {
  // the file as a whole
  NOT_EXCHANGE_FILE: "the first line is not 1CClientBankExchange",
  ENDS_INSIDE_SECTION: "the file ends inside a section",
  NO_FILE_END: "no КонецФайла: the file is cut short",
  NO_ACCOUNT_OR_PERIOD: "the header names no account (РасчСчет) or period (ДатаНачала, ДатаКонца)",
  NO_BALANCE_SECTION: "no balance section (СекцияРасчСчет)",
  // a line of it
  TEXT_AFTER_FILE_END: "text after КонецФайла",
  SECTION_NOT_CLOSED: "a section starts, or the file ends, before the open section is closed",
  NOT_KEY_VALUE: "the line is not Key=Value",
  BALANCE_SECTION_INCOMPLETE: "the balance section lacks a balance or a total",
  NO_AMOUNT: "the document has no amount (Сумма)",
  SEVERAL_PAYOUTS: "one document names several payouts",
  PAYOUT_TWICE: "a payout appears twice",
} as const;
export type StatementProblem = keyof typeof STATEMENT_PROBLEMS;

type Def = { transport: TransportCode; params: Record<string, ParamKind>; en: string };

/** Transport codes, carried over NATS; the gateway maps them to HTTP. */
export const ERROR_HTTP_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL: 500,
  BAD_GATEWAY: 502,
  UNAVAILABLE: 503,
} as const;
export type TransportCode = keyof typeof ERROR_HTTP_STATUS;

type NoParams = Record<never, ParamKind>;
function def(transport: TransportCode, en: string): { transport: TransportCode; params: NoParams; en: string };
function def<P extends Record<string, ParamKind>>(transport: TransportCode, en: string, params: P): { transport: TransportCode; params: P; en: string };
function def(transport: TransportCode, en: string, params: Record<string, ParamKind> = {}) {
  return { transport, params, en };
}

export const REASONS = {
  // ── requests ──────────────────────────────────────────────────────────────
  /** Every problem of a request at once; `issues` are structured (ValidationIssue). */
  VALIDATION_FAILED: def("BAD_REQUEST", "{issues}", { issues: "issues" }),
  MALFORMED_JSON: def("BAD_REQUEST", "malformed JSON"),
  BODY_NOT_UTF8: def("BAD_REQUEST", "request body must be UTF-8"),
  BODY_INCOMPLETE: def("BAD_REQUEST", "the request body ended before it was complete"),
  BODY_REQUIRED: def("BAD_REQUEST", "request body is required"),
  CONTENT_TYPE_NOT_JSON: def("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json"),
  CONTENT_ENCODING_UNSUPPORTED: def("UNSUPPORTED_MEDIA_TYPE", "Content-Encoding is not accepted: send the body uncompressed"),
  BODY_TOO_LARGE: def("PAYLOAD_TOO_LARGE", "request body must be at most {maxBytes} bytes", { maxBytes: "int" }),
  ROUTE_NOT_FOUND: def("NOT_FOUND", "Cannot {method} {path}", { method: "text", path: "text" }),
  METHOD_NOT_ALLOWED: def("METHOD_NOT_ALLOWED", "method {method} is not allowed here; allowed: {allowed}", { method: "text", allowed: "text" }),
  API_KEY_INVALID: def("UNAUTHORIZED", "missing or invalid API key"),
  BEARER_TOKEN_INVALID: def("UNAUTHORIZED", "missing or invalid bearer token"),
  CALLBACK_SIGNATURE_INVALID: def("UNAUTHORIZED", "invalid callback signature: {detail}", { detail: "text" }),
  RATE_LIMITED: def("TOO_MANY_REQUESTS", "rate limit exceeded: at most {limit} requests per minute; retry in {retryAfterSeconds} s", {
    limit: "int",
    retryAfterSeconds: "int",
  }),
  IDEMPOTENCY_KEY_INVALID: def("BAD_REQUEST", "{header}: must be 1 to 64 printable ASCII characters", { header: "text" }),
  IDEMPOTENCY_KEY_REUSED: def("UNPROCESSABLE", "{header} {key} was already used with another request (method, path or body); use a new key for a new request", {
    header: "text",
    key: "text",
  }),
  IDEMPOTENCY_KEY_IN_PROGRESS: def("CONFLICT", "a request with {header} {key} is still in progress; retry later", { header: "text", key: "text" }),
  CSRF_TOKEN_INVALID: def("FORBIDDEN", "missing or stale CSRF token"),
  FORM_TOO_LARGE: def("PAYLOAD_TOO_LARGE", "form too large"),
  PAGE_NOT_FOUND: def("NOT_FOUND", "page not found"),
  INTERNAL: def("INTERNAL", "internal error"),
  /** A service (or a store the gateway needs) did not answer in time. */
  SERVICE_UNAVAILABLE: def("UNAVAILABLE", "{service} service unavailable", { service: "service" }),

  // ── payments ──────────────────────────────────────────────────────────────
  PAYMENT_NOT_FOUND: def("NOT_FOUND", "payment not found"),
  SHOP_NOT_ACTIVE: def("UNAUTHORIZED", "shop is not active"),
  METHOD_NOT_AVAILABLE: def("CONFLICT", "method {method} is not available to this shop", { method: "method" }),
  NO_METHOD_AVAILABLE: def("CONFLICT", "no payment method is available to this shop"),
  ORDER_ID_TAKEN: def("CONFLICT", "a payment with this orderId already exists"),
  CANCEL_WHILE_PAYING: def("CONFLICT", "the buyer has already started paying; wait for the final status"),
  PAYMENT_NOT_CANCELABLE: def("CONFLICT", "the payment is {status} and can no longer be canceled", { status: "status" }),
  SHOP_NOT_IN_DIRECTORY: def("UNAVAILABLE", "shop directory has no entry for this payment's shop yet"),
  PAYMENT_NOT_PAYABLE: def("CONFLICT", "payment is {status} and cannot be paid", { status: "status" }),
  SHOP_NOT_ACCEPTING: def("CONFLICT", "the shop is not accepting payments"),
  PAYMENT_METHOD_FIXED: def("CONFLICT", "this payment is to be paid by {method}", { method: "method" }),
  PAYMENT_BEING_PAID: def("CONFLICT", "payment is already being paid by {method}", { method: "method" }),
  SANDBOX_OUTCOME_LIVE_PAYMENT: def("CONFLICT", "only a sandbox payment takes a chosen outcome"),
  SANDBOX_OUTCOME_NOT_PENDING: def("CONFLICT", "payment is {status}; a sandbox outcome needs a PENDING payment", { status: "status" }),
  PAYMENT_METHOD_UNKNOWN: def("BAD_REQUEST", "unknown payment method"),
  SANDBOX_OUTCOME_UNKNOWN: def("BAD_REQUEST", "unknown outcome"),
  PROVIDER_UNAVAILABLE: def("UNAVAILABLE", "the payment provider is unavailable; nothing changed, try again"),
  /** A call the provider may have carried out (a capture, a void): its outcome comes by callback, or the same call answers it. */
  PROVIDER_NO_ANSWER: def("UNAVAILABLE", "the payment provider did not answer in time; the outcome arrives by webhook, or repeat the request: it is safe to repeat"),
  PROVIDER_REFUSED: def("BAD_GATEWAY", "the payment provider refused the request"),
  // Why the bank declined a payment or a charge (the acquirer's reason, docs/acquirer-protocol.md).
  CARD_DECLINED: def("BAD_GATEWAY", "the bank declined the card"),
  INSUFFICIENT_FUNDS: def("BAD_GATEWAY", "the bank declined: not enough money on the card or account"),
  CARD_EXPIRED: def("BAD_GATEWAY", "the card has expired"),
  CARD_LIMIT_EXCEEDED: def("BAD_GATEWAY", "the bank declined: a limit of the card or account was reached"),
  CARD_DETAILS_INVALID: def("BAD_GATEWAY", "the bank declined: the card's details are wrong"),
  METHOD_REVOKED: def("BAD_GATEWAY", "the saved payment method was revoked"),
  AUTHENTICATION_REQUIRED: def("BAD_GATEWAY", "the bank asks the buyer to confirm the payment"),
  AUTHENTICATION_FAILED: def("BAD_GATEWAY", "the buyer did not pass the bank's confirmation (3-D Secure)"),
  DECLINED_BY_BUYER: def("BAD_GATEWAY", "the buyer declined in the bank app"),
  PROVIDER_DECLINED: def("BAD_GATEWAY", "the bank declined: {detail}", { detail: "text" }),

  // ── saved methods, charges and holds ─────────────────────────────────────
  SAVED_METHOD_INACTIVE: def("CONFLICT", "the saved payment method is {status} and can no longer be charged", { status: "text" }),
  PAYMENT_NOT_CAPTURABLE: def("CONFLICT", "the payment is {status}; only an AUTHORIZED payment can be captured", { status: "status" }),
  CAPTURE_RECEIPT_REQUIRED: def("BAD_REQUEST", "a partial capture of a payment with a fiscal receipt needs receipt.items for the captured amount"),
  SANDBOX_OUTCOME_NOT_APPLICABLE: def("CONFLICT", "payment is {status}; the outcome {outcome} does not apply to it", { status: "status", outcome: "text" }),

  // ── refunds and the balance ──────────────────────────────────────────────
  REFUND_NOT_SUCCESS: def("CONFLICT", "only a SUCCESS payment can be refunded; it is {status}", { status: "status" }),
  REFUND_ALREADY_FULL: def("CONFLICT", "only a SUCCESS payment can be refunded; it is already fully refunded"),
  REFUND_NOTHING_LEFT: def("CONFLICT", "nothing is left to refund: {refundedKopecks} refunded, {refundingKopecks} in refunds still in progress", {
    refundedKopecks: "kopecks",
    refundingKopecks: "kopecks",
  }),
  REFUND_EXCEEDS_REFUNDABLE: def(
    "CONFLICT",
    "refund of {refundKopecks} exceeds what is left to refund, {refundableKopecks} of {paymentKopecks}; {refundingKopecks} are in refunds still in progress",
    { refundKopecks: "kopecks", refundableKopecks: "kopecks", paymentKopecks: "kopecks", refundingKopecks: "kopecks" },
  ),
  /** The refund's share of the payment's net receipt (neededKopecks) is more than the balance has for it. */
  REFUND_EXCEEDS_AVAILABLE: def(
    "CONFLICT",
    "the balance cannot cover the refund: it takes {neededKopecks} from the balance, which has {availableKopecks} available (after {frozenKopecks} from the payment's own frozen receipt)",
    { neededKopecks: "kopecks", availableKopecks: "kopecks", frozenKopecks: "kopecks" },
  ),
  REFUND_NO_PROVIDER_SESSION: def("CONFLICT", "the payment has no provider session to refund"),
  REFUND_DECLINED: def("BAD_GATEWAY", "the acquirer declined the refund: {detail}", { detail: "text" }),
  REFUND_FAILED: def("CONFLICT", "the refund failed"),
  PAYOUT_EXCEEDS_AVAILABLE: def("CONFLICT", "payout of {payoutKopecks} exceeds the available balance {availableKopecks}", {
    payoutKopecks: "kopecks",
    availableKopecks: "kopecks",
  }),
  PAYOUT_KEY_REUSED: def("CONFLICT", "idempotency key {key} was already used for a payout of {amountKopecks}", { key: "text", amountKopecks: "kopecks" }),
  PAYOUT_DETAILS_MISSING: def("CONFLICT", "the account has no payout details yet: enter its legal and bank details in the dashboard first"),
  PAYOUT_NOT_FOUND: def("NOT_FOUND", "payout not found"),
  PAYOUT_STATUS_CONFLICT: def("CONFLICT", "the payout is {status}; it cannot become {target}", { status: "text", target: "text" }),
  // What a payout's bank said when it refused or returned it (recorded on the payout).
  PAYOUT_REFUSED_BY_BANK: def("BAD_GATEWAY", "the bank refused the payment order: {detail}", { detail: "text" }),
  PAYOUT_RETURNED_BY_BANK: def("BAD_GATEWAY", "the recipient's bank returned the payment: {detail}", { detail: "text" }),
  /** The operator has not configured the account payouts are paid from (PAYOUT_PAYER_*). */
  PAYOUT_PAYER_NOT_CONFIGURED: def("CONFLICT", "payouts cannot be sent: the platform's own account (PAYOUT_PAYER_*) is not configured"),
  PAYOUT_BATCH_NOT_FOUND: def("NOT_FOUND", "no such exchange file"),
  /** PAYOUT_RAIL is a bank's API: its worker sends payouts as they may go, and no exchange file is made. */
  PAYOUT_RAIL_NOT_FILES: def("CONFLICT", "payouts go to the bank through its API (PAYOUT_RAIL={rail}): no exchange file is made", { rail: "text" }),
  /** A payout sent through a bank's API ends by what that bank answers the rail, never by an operator's word. */
  PAYOUT_OUTCOME_BY_BANK: def("CONFLICT", "the payout went through the bank's API ({rail}): whether it was paid is the bank's answer, asked by the rail", { rail: "text" }),
  // A bank statement that cannot be taken in (docs/balance.md, "The bank's statement"): nothing of it is applied.
  STATEMENT_MALFORMED: def("BAD_REQUEST", "not a 1CClientBankExchange statement: {problem}", { problem: "statementProblem" }),
  STATEMENT_LINE_MALFORMED: def("BAD_REQUEST", "not a 1CClientBankExchange statement: line {line}: {problem}", { line: "int", problem: "statementProblem" }),
  STATEMENT_OTHER_ACCOUNT: def("BAD_REQUEST", "the statement is of account {account}, not of the account payouts are paid from ({payerAccount})", {
    account: "text",
    payerAccount: "text",
  }),
  // A balance section whose opening + in − out is not its closing; documents whose sums are not the totals (`total`: the format's field, ВсегоСписано or ВсегоПоступило).
  STATEMENT_TOTALS_MISMATCH: def(
    "BAD_REQUEST",
    "line {line}: the statement does not add up ({openingKopecks} + {inKopecks} − {outKopecks} ≠ {closingKopecks}): it was edited or is incomplete; nothing was applied",
    { line: "int", openingKopecks: "kopecks", inKopecks: "kopecks", outKopecks: "kopecks", closingKopecks: "kopecks" },
  ),
  STATEMENT_DOCUMENTS_MISMATCH: def("BAD_REQUEST", "the documents add up to {documentsKopecks}, the statement's {total} says {totalKopecks}: it was edited or is incomplete; nothing was applied", {
    total: "text",
    documentsKopecks: "kopecks",
    totalKopecks: "kopecks",
  }),
  // A line of ours (its purpose names the payout) that differs from the payout: edited, or someone else's order.
  STATEMENT_AMOUNT_MISMATCH: def("BAD_REQUEST", "line {line}: payout {reference} is for {expectedKopecks}, the statement says {foundKopecks}; nothing was applied", {
    line: "int",
    reference: "text",
    expectedKopecks: "kopecks",
    foundKopecks: "kopecks",
  }),
  STATEMENT_PAYEE_MISMATCH: def("BAD_REQUEST", "line {line}: payout {reference} went to {expected}, the statement says {found}; nothing was applied", {
    line: "int",
    reference: "text",
    expected: "text",
    found: "text",
  }),
  STATEMENT_ORDER_MISMATCH: def("BAD_REQUEST", "line {line}: payout {reference} is payment order {expected}, the statement says {found}; nothing was applied", {
    line: "int",
    reference: "text",
    expected: "text",
    found: "text",
  }),


  // ── webhooks (also what the delivery log records for a failed attempt) ────
  DELIVERY_NOT_FOUND: def("NOT_FOUND", "delivery not found"),
  WEBHOOK_URL_MISSING: def("CONFLICT", "no webhook URL configured"),
  WEBHOOK_URL_INVALID: def("BAD_GATEWAY", "the webhook URL is not a valid URL"),
  WEBHOOK_URL_SCHEME: def("BAD_GATEWAY", "the webhook URL scheme {scheme} is not http or https", { scheme: "text" }),
  WEBHOOK_HOST_NO_ADDRESS: def("BAD_GATEWAY", "{host} has no address", { host: "text" }),
  WEBHOOK_ADDRESS_BLOCKED: def("BAD_GATEWAY", "blocked: {host} is not a public address", { host: "text" }),
  WEBHOOK_HTTP_STATUS: def("BAD_GATEWAY", "HTTP {httpStatus}", { httpStatus: "int" }),
  WEBHOOK_REDIRECT: def("BAD_GATEWAY", "HTTP {httpStatus}: redirects are not followed", { httpStatus: "int" }),
  WEBHOOK_TIMEOUT: def("BAD_GATEWAY", "no response within {timeoutMs} ms", { timeoutMs: "int" }),
  WEBHOOK_CONNECTION_FAILED: def("BAD_GATEWAY", "connection failed: {detail}", { detail: "systemError" }),

  // ── shops, accounts, users ───────────────────────────────────────────────
  SHOP_NOT_FOUND: def("NOT_FOUND", "shop not found"),
  CONNECTORS_NOT_FOR_SANDBOX: def("CONFLICT", "a sandbox shop's payments never reach an acquirer: it takes no connectors"),
  ACCOUNT_NOT_FOUND: def("NOT_FOUND", "no such account"),
  ACCOUNT_HAS_USER: def("CONFLICT", "this account already has its team: its owner invites more members from the dashboard"),
  EMAIL_TAKEN: def("CONFLICT", "a user with this email already exists"),
  // ── the dashboard's teams (docs/dashboard.md, "Members and roles") ─────────
  /** The member's role does not allow the page or action (web/access.ts). */
  ROLE_FORBIDDEN: def("FORBIDDEN", "your role ({role}) does not allow this", { role: "text" }),
  /** Only an owner grants, changes or removes the owner role. */
  OWNER_ONLY: def("FORBIDDEN", "only an owner can grant, change or remove the owner role"),
  LAST_OWNER: def("CONFLICT", "the team's last owner cannot leave or be demoted: make another member an owner first"),
  MEMBER_NOT_FOUND: def("NOT_FOUND", "no such member of this team"),
  USER_NOT_FOUND: def("NOT_FOUND", "no one signs in to the dashboard with this email"),
  INVITE_NOT_FOUND: def("NOT_FOUND", "this invitation is not valid: it was used, withdrawn or has expired"),
  /** One sign-in belongs to one account: an address that signs in already cannot be invited. */
  INVITEE_HAS_SIGN_IN: def("CONFLICT", "this address already signs in to the dashboard"),
  TWO_FACTOR_NOT_ENABLED: def("CONFLICT", "turn on two-factor sign-in for yourself first"),
  TWO_FACTOR_REQUIRED_BY_TEAM: def("CONFLICT", "your team requires two-factor sign-in: it cannot be turned off"),
  KEY_SHOP_INACTIVE: def("CONFLICT", "keys are issued only for an active shop"),
  /** The directory committed the change; only its publication to the services waits for the bus. */
  DIRECTORY_PUBLISH_PENDING: def("UNAVAILABLE", "change saved; it takes effect once the directory bus recovers"),
  PERIOD_INVALID: def("BAD_REQUEST", "invalid period"),
  REFUND_AMOUNT_INVALID: def("BAD_REQUEST", "the refund amount must be a positive sum in rubles and kopecks"),
  CAPTURE_AMOUNT_INVALID: def("BAD_REQUEST", "the amount to capture must be a positive sum in rubles and kopecks"),

  // ── receipts and the cash register ───────────────────────────────────────
  RECEIPT_NOT_FOUND: def("NOT_FOUND", "receipt not found"),
  RECEIPT_NOT_RESENDABLE: def("CONFLICT", "the receipt is {status}; only a FAILED receipt can be resent", { status: "text" }),
  DOCUMENT_NOT_FOUND: def("NOT_FOUND", "document not found"),
  DOCUMENT_BODY_MISMATCH: def("CONFLICT", "a document with this externalId exists with another body"),
  REGISTER_DOWN: def("UNAVAILABLE", "the register is down (sandbox switch)"),
  // What the receipts service records for a receipt not registered yet (never thrown to a caller).
  REGISTER_TIMEOUT: def("BAD_GATEWAY", "register unreachable: no answer within {timeoutMs} ms", { timeoutMs: "int" }),
  REGISTER_UNREACHABLE: def("BAD_GATEWAY", "register unreachable: {detail}", { detail: "systemError" }),
  REGISTER_HTTP_STATUS: def("BAD_GATEWAY", "register answered {httpStatus}", { httpStatus: "int" }),
  REGISTER_BAD_REPLY: def("BAD_GATEWAY", "the register's reply does not follow the protocol"),
  RECEIPT_NOT_FISCALISED_YET: def("BAD_GATEWAY", "the register has not fiscalised it yet"),
  RECEIPT_REFUSED_BY_REGISTER: def("BAD_GATEWAY", "refused by the register: {detail}", { detail: "text" }),
  // An online register's own error (АТОЛ Онлайн: its code and type): worth another attempt.
  REGISTER_ERROR: def("BAD_GATEWAY", "the register answered error {code} ({type}): {text}", { code: "int", type: "text", text: "text" }),
  // Refused for a reason another attempt cannot cure (credentials, the receipt's data): the receipt is FAILED at once.
  REGISTER_REFUSED: def("BAD_GATEWAY", "the register refused it, a person must act: error {code} ({type}): {text}", { code: "int", type: "text", text: "text" }),
  RECEIPT_TAXATION_NOT_REGISTERED: def("BAD_GATEWAY", "the register is not registered for the taxation system {taxation}, a person must act", { taxation: "text" }),

  // ── the acquirer ──────────────────────────────────────────────────────────
  SESSION_NOT_FOUND: def("NOT_FOUND", "session not found"),
  SESSION_AMOUNT_MISMATCH: def("CONFLICT", "a session for this payment and method exists with another amount"),
  SESSION_ALREADY_PAID: def("CONFLICT", "the session is already paid or its amount held"),
  SESSION_TERMS_MISMATCH: def("CONFLICT", "a session with this id exists with another {field}", { field: "text" }),
  HOLD_NOT_FOR_SBP: def("BAD_REQUEST", "SBP payments cannot be held: two-stage payments are for cards only"),
  SESSION_NOT_HELD: def("CONFLICT", "the session is not a hold: it is paid in one stage"),
  HOLD_NOT_AUTHORIZED: def("CONFLICT", "the session is {status}: no amount is held yet", { status: "text" }),
  HOLD_ALREADY_CAPTURED: def("CONFLICT", "the hold was already captured: {capturedKopecks}", { capturedKopecks: "kopecks" }),
  HOLD_VOIDED: def("CONFLICT", "the hold was released ({detail}); nothing can be captured", { detail: "text" }),
  CAPTURE_EXCEEDS_HOLD: def("BAD_REQUEST", "amountKopecks exceeds the amount held: {heldKopecks}", { heldKopecks: "kopecks" }),
  METHOD_NOT_FOUND: def("NOT_FOUND", "saved method not found"),
  SESSION_NOT_PAID: def("CONFLICT", "only a paid session can be refunded"),
  SESSION_REFUND_EXCEEDS: def("BAD_REQUEST", "amountKopecks exceeds what is left of the paid amount: {leftKopecks}", { leftKopecks: "kopecks" }),
} satisfies Record<string, Def>;

export type Reason = keyof typeof REASONS;
export const REASON_CODES = Object.keys(REASONS) as [Reason, ...Reason[]];
export const ReasonCode = z.enum(REASON_CODES);
/** A reason's parameters on the wire: amounts are integer kopecks. */
export const ReasonParams = z.record(z.string(), z.unknown());

/**
 * A problem of a request, without English: the field's path, zod's issue code and that issue's
 * figures (minimum, maximum, expected type, format…). Our own rules (custom issues) name their
 * `rule` from ISSUE_RULES.
 */
export const ValidationIssue = z.object({
  path: z.string(),
  issue: z.string(),
  params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  /** zod's English text, for the API's message. */
  message: z.string(),
});
export type ValidationIssue = z.infer<typeof ValidationIssue>;

type KindValue = { kopecks: number; int: number; text: string; status: string; method: string; service: string; systemError: string; issues: ValidationIssue[]; statementProblem: StatementProblem };
export type ParamsOf<R extends Reason> = { [K in keyof (typeof REASONS)[R]["params"]]: KindValue[(typeof REASONS)[R]["params"][K] & ParamKind] };
/** `[]` for a reason without parameters, `[params]` otherwise. */
export type ParamArgs<R extends Reason> = keyof (typeof REASONS)[R]["params"] extends never ? [] : [ParamsOf<R>];

export type AnyReasonParams = Record<string, unknown>;

/** zod's issue codes, each of which a page can say in its language. */
export const ZOD_ISSUE_CODES = [
  "invalid_type",
  "too_big",
  "too_small",
  "invalid_format",
  "not_multiple_of",
  "unrecognized_keys",
  "invalid_union",
  "invalid_key",
  "invalid_element",
  "invalid_value",
  "custom",
] as const;

/** Our custom validation rules, with their parameters: a page says an issue of code "custom" by its `params.rule`. */
export const ISSUE_RULE_PARAMS = {
  LONE_SURROGATE: [],
  NUL_CHARACTER: [],
  PROTO_KEY: [],
  UNSAFE_INTEGER: [],
  METADATA_TOO_LARGE: ["maxBytes"],
  RETURN_URL: [],
  WEBHOOK_URL_HTTPS: [],
  WEBHOOK_URL_HTTP_OR_HTTPS: [],
  WEBHOOK_URL_CREDENTIALS: [],
  WEBHOOK_URL_PRIVATE: [],
  UNKNOWN_STATUS: ["values", "allowed"],
  FROM_AFTER_TO: [],
  EMAIL: [],
  PASSWORD_LENGTH: ["min", "max"],
  RECEIPT_REQUIRED: [],
  RECEIPT_TAXATION_REQUIRED: [],
  RECEIPT_VAT_REQUIRED: [],
  RECEIPT_ITEMS_SUM: [],
  RECEIPT_CONTACT: [],
  QUANTITY_DECIMALS: [],
  ITEM_AMOUNT: [],
  TOTAL_SUM: ["totalKopecks"],
  WITH_PAYMENT_METHOD_ID: [],
  FAILURE_CODE_WITHOUT_FAILED: [],
  // legal and bank details (bank-details.ts)
  DIGITS_COUNT: ["digits"],
  INN_CHECKSUM: [],
  OGRN_KIND: [],
  OGRN_CHECKSUM: [],
  KPP_REQUIRED: [],
  KPP_NOT_FOR_ENTREPRENEUR: [],
  KPP_FORMAT: [],
  BIK_FORMAT: [],
  CORRESPONDENT_ACCOUNT_KIND: [],
  CORRESPONDENT_ACCOUNT_BIK: ["bikEnd"],
  CONTROL_KEY: [],
  SETTLEMENT_ACCOUNT_KIND: ["prefixes"],
  ACCOUNT_NOT_RUBLES: [],
} as const satisfies Record<string, readonly string[]>;
export const ISSUE_RULES = Object.keys(ISSUE_RULE_PARAMS) as (keyof typeof ISSUE_RULE_PARAMS)[];
export type IssueRule = keyof typeof ISSUE_RULE_PARAMS;

/** `{name}` placeholders of a template. */
export const placeholdersOf = (template: string) => [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** Fills a template's placeholders with the formatted parameters. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** Kopecks as the API's English reads them: "1500.50 RUB (150050 kopecks)". */
export function rublesAndKopecks(kopecks: number): string {
  const sign = kopecks < 0 ? "-" : "";
  const abs = Math.abs(kopecks);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")} RUB (${kopecks} kopecks)`;
}

/** The English message of a reason, as the API's `message` carries it. */
export function englishMessage(reason: Reason, params: AnyReasonParams): string | string[] {
  if (reason === "VALIDATION_FAILED") return (params.issues as ValidationIssue[]).map(issueText);
  const kinds = REASONS[reason].params as Record<string, ParamKind>;
  const values = Object.fromEntries(
    Object.entries(params).map(([k, v]) => [
      k,
      kinds[k] === "kopecks" ? rublesAndKopecks(v as number) : kinds[k] === "statementProblem" && Object.hasOwn(STATEMENT_PROBLEMS, String(v)) ? STATEMENT_PROBLEMS[v as StatementProblem] : String(v),
    ]),
  );
  return fillTemplate(REASONS[reason].en, values);
}

const issueText = (i: ValidationIssue) => (i.path ? `${i.path}: ${i.message}` : i.message);
