import { createHmac, timingSafeEqual } from "node:crypto";
import { asWebhookEvent, type WebhookEvent } from "./event.ts";

export type VerifyFailureReason =
  | "missing_header"
  | "malformed_header"
  | "signature_mismatch"
  | "stale_timestamp"
  | "future_timestamp"
  | "malformed_body";

/**
 * Which header verified: `signature-set` is Payaccept-Signature (one v1 per live secret while a
 * secret rotation overlaps; docs/webhooks.md), `v2` X-Signature-V2, `legacy` X-Signature.
 */
export type VerifyScheme = "signature-set" | "v2" | "legacy";

export type VerifyResult =
  | { ok: true; event: WebhookEvent; scheme: VerifyScheme }
  | { ok: false; reason: VerifyFailureReason; message: string };

export type VerifyOptions = {
  /** Largest accepted distance between X-Timestamp and now, either way (spec: 5 minutes). */
  toleranceSeconds?: number;
  /** The current time, as a Date or epoch milliseconds; defaults to the system clock. */
  now?: Date | number;
  /**
   * Accept a webhook that carries only the legacy X-Signature. Off by default: the legacy scheme
   * does not cover the timestamp, so it cannot refuse a replayed request.
   */
  allowLegacy?: boolean;
};

export type RawBody = string | Uint8Array | ArrayBuffer;
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

const HEX64 = /^[0-9a-f]{64}$/;
const DIGITS = /^\d+$/;
const MISMATCH_HINT =
  "Verify the raw request body exactly as received: a body that was parsed and serialised again " +
  "(for example JSON.stringify(req.body)) is the usual cause. Also check the shop's signing secret.";

/**
 * Verifies a webhook (spec §5.2) over the raw body bytes, before any JSON parsing: a signature of
 * "{timestamp}.{body}" and the timestamp's freshness, compared in constant time. The signature set
 * (Payaccept-Signature: `t=…,v1=…[,v1=…]`) is checked when present, any listed v1 matching the
 * secret: during a rotation's overlap it lists the new secret's and the retiring one's, so either
 * secret verifies. Otherwise X-Signature-V2 with X-Timestamp.
 */
export function verifyWebhook(rawBody: RawBody, headers: HeaderSource, secret: string, options: VerifyOptions = {}): VerifyResult {
  const { allowLegacy = false } = options;
  const body = toBytes(rawBody);
  const set = header(headers, "payaccept-signature");
  if (set !== undefined) return verifySet(body, set, secret, options);
  const v2 = header(headers, "x-signature-v2");
  const legacy = header(headers, "x-signature");
  if (v2 === undefined) {
    if (allowLegacy && legacy !== undefined) return verifyLegacy(body, legacy, secret);
    const hint = legacy !== undefined ? " (only the legacy X-Signature is present; allowLegacy accepts it without replay protection)" : "";
    return fail("missing_header", `X-Signature-V2 header is missing${hint}`);
  }
  const timestamp = header(headers, "x-timestamp");
  if (timestamp === undefined) return fail("missing_header", "X-Timestamp header is missing");
  if (!DIGITS.test(timestamp)) return fail("malformed_header", "X-Timestamp must be Unix seconds (digits only)");
  const signature = v2.toLowerCase();
  if (!HEX64.test(signature)) return fail("malformed_header", "X-Signature-V2 must be 64 hex characters");
  if (!timedSignatureMatches(body, timestamp, [signature], secret)) return fail("signature_mismatch", `X-Signature-V2 does not match. ${MISMATCH_HINT}`);
  return fresh(timestamp, "X-Timestamp", options) ?? parse(body, "v2");
}

/** Payaccept-Signature: `t=<unix seconds>` and one or more `v1=<hex>`, comma-separated. */
function verifySet(body: Uint8Array, value: string, secret: string, options: VerifyOptions): VerifyResult {
  const fields = value.split(",").map((part) => part.trim().split("="));
  const timestamps = fields.filter(([k]) => k === "t").map(([, v]) => v ?? "");
  const signatures = fields.filter(([k]) => k === "v1").map(([, v]) => (v ?? "").toLowerCase());
  if (timestamps.length !== 1 || !DIGITS.test(timestamps[0]!)) return fail("malformed_header", "Payaccept-Signature must carry one t=<Unix seconds>");
  if (signatures.length === 0 || !signatures.every((s) => HEX64.test(s))) return fail("malformed_header", "Payaccept-Signature must carry v1=<64 hex characters> signatures");
  const timestamp = timestamps[0]!;
  if (!timedSignatureMatches(body, timestamp, signatures, secret)) return fail("signature_mismatch", `no signature in Payaccept-Signature matches. ${MISMATCH_HINT}`);
  return fresh(timestamp, "Payaccept-Signature's t", options) ?? parse(body, "signature-set");
}

/** Whether any of the signatures is the secret's HMAC-SHA256 of "{timestamp}.{body}"; each compared in constant time. */
function timedSignatureMatches(body: Uint8Array, timestamp: string, signatures: string[], secret: string): boolean {
  const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
  let matched = false;
  for (const signature of signatures) if (timingSafeEqual(expected, Buffer.from(signature, "hex"))) matched = true;
  return matched;
}

/** Undefined when the timestamp is within the tolerance of now, else why not. */
function fresh(timestamp: string, name: string, options: VerifyOptions): VerifyResult | undefined {
  const { toleranceSeconds = 300 } = options;
  const age = Math.floor(epochMs(options.now) / 1000) - Number(timestamp);
  if (age > toleranceSeconds) return fail("stale_timestamp", `${name} is ${age} s old, more than ${toleranceSeconds} s: treated as a replay`);
  if (-age > toleranceSeconds) return fail("future_timestamp", `${name} is ${-age} s in the future, more than ${toleranceSeconds} s: check the clocks`);
  return undefined;
}

function verifyLegacy(body: Uint8Array, value: string, secret: string): VerifyResult {
  const signature = value.toLowerCase();
  if (!HEX64.test(signature)) return fail("malformed_header", "X-Signature must be 64 hex characters");
  const expected = createHmac("sha256", secret).update(body).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, "hex"))) return fail("signature_mismatch", `X-Signature does not match. ${MISMATCH_HINT}`);
  return parse(body, "legacy");
}

function parse(body: Uint8Array, scheme: VerifyScheme): VerifyResult {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(body));
  } catch {
    return fail("malformed_body", "the body is not JSON");
  }
  const event = asWebhookEvent(value);
  if (!event) return fail("malformed_body", "the body is not a webhook event");
  return { ok: true, event, scheme };
}

const fail = (reason: VerifyFailureReason, message: string): VerifyResult => ({ ok: false, reason, message });

const utf8 = new TextEncoder();
function toBytes(raw: RawBody): Uint8Array {
  if (typeof raw === "string") return utf8.encode(raw);
  return raw instanceof Uint8Array ? raw : new Uint8Array(raw);
}

function epochMs(now: Date | number | undefined): number {
  if (now === undefined) return Date.now();
  return typeof now === "number" ? now : now.getTime();
}

/** A header by lower-case name from a Fetch Headers object or a Node-style record (any case). */
function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}
