import { z } from "zod";
import type { Reason } from "./reasons.ts";

export const PAYMENT_STATUSES = ["CREATED", "PENDING", "SUCCESS", "FAILED", "EXPIRED", "REFUNDED", "CANCELED"] as const;
export const PaymentStatus = z.enum(PAYMENT_STATUSES);
export type PaymentStatus = z.infer<typeof PaymentStatus>;

export const FINAL_STATUSES = ["SUCCESS", "FAILED", "EXPIRED", "REFUNDED", "CANCELED"] as const;
export const FinalStatus = z.enum(FINAL_STATUSES);
export type FinalStatus = z.infer<typeof FinalStatus>;

export const PAYMENT_METHODS = ["SBP", "CARD"] as const;
export const PaymentMethod = z.enum(PAYMENT_METHODS);
export type PaymentMethod = z.infer<typeof PaymentMethod>;

/**
 * Each webhook retry pause is the spec's, made up to this fraction later at random and never
 * earlier: the spec promises the schedule, and retries of webhooks that failed together (a
 * receiver's outage) would otherwise all come back in the same second. The dispatcher applies it;
 * the OpenAPI document states it.
 */
export const WEBHOOK_RETRY_JITTER = 0.1;

/** Where a webhook delivery's current attempt series stands (docs/webhooks.md). */
export const DELIVERY_RESULTS = ["pending", "delivered", "exhausted", "blocked"] as const;
export const DeliveryResult = z.enum(DELIVERY_RESULTS);
export type DeliveryResult = z.infer<typeof DeliveryResult>;

/**
 * The reason of a delivery attempt that found no webhook URL (reasons.ts). A delivery whose last
 * attempt ended so is "unsent", not failing: a shop that takes no webhooks has no endpoint to be
 * broken (Stripe counts such events nowhere), and its attempts go on only so that a URL set within
 * the retry window still gets the event (docs/webhooks.md, "No webhook URL").
 */
export const WEBHOOK_UNSENT_REASON = "WEBHOOK_URL_MISSING" satisfies Reason;

export const PAYOUT_STATUSES = ["PENDING", "PAID", "FAILED"] as const;
export const PayoutStatus = z.enum(PAYOUT_STATUSES);
export type PayoutStatus = z.infer<typeof PayoutStatus>;

export const Uuid = z.uuid({ message: "must be a UUID" });
/**
 * An id the merchant sends back (a path, a cursor). UUIDs are case-insensitive on input (RFC 9562
 * §4) and ours are written in lowercase, which the stores compare byte for byte: a client that
 * keeps ids in capitals (SQL Server's uniqueidentifier, some .NET code) must find the same payment.
 */
export const UuidInput = Uuid.transform((s) => s.toLowerCase());

export const MIN_AMOUNT_KOPECKS = 100;
export const MAX_AMOUNT_KOPECKS = 10_000_000_000;
export const METADATA_MAX_BYTES = 4096;

/**
 * Every string that comes in: well-formed Unicode. A lone UTF-16 surrogate ("\ud800", legal in a
 * JSON string escape) is not text; it would reach SQLite, NATS and the merchant's systems as U+FFFD,
 * so "X-\ud800" and "X-\udc00" would become the same order id. Refused rather than replaced.
 */
export const LONE_SURROGATE = "must not contain a lone UTF-16 surrogate";
/**
 * Nor the character U+0000 ("\u0000" in JSON): PostgreSQL's text and jsonb cannot hold it, so a
 * payment that a SQLite store took would fail every PostgreSQL store its events reach (the
 * dispatcher's, the receipts'), for ever; and C-based systems of the merchant cut the string there.
 */
export const NUL_CHARACTER = "must not contain the character U+0000";
const hasNul = (s: string) => s.includes("\0");
export const Text = z
  .string()
  .refine((s) => s.isWellFormed(), { message: LONE_SURROGATE, abort: true, params: { rule: "LONE_SURROGATE" } })
  .refine((s) => !hasNul(s), { message: NUL_CHARACTER, abort: true, params: { rule: "NUL_CHARACTER" } });

/**
 * Problems of a free-form JSON value (metadata): a lone surrogate in any key or string, and the
 * key `__proto__` at any depth. JSON.parse keeps `__proto__` as an own property, but zod's
 * records, object spreads and `obj[key] =` copies in every consumer (ours and the merchant's)
 * drop it or set a prototype instead, so it cannot be echoed faithfully: it is refused. So is an
 * integer beyond 2^53 − 1: JSON.parse (ours and most clients') rounds it, so 12345678901234567890
 * came back as 12345678901234567000, a different id; a string carries it exactly.
 */
export const UNSAFE_INTEGER = "must not hold an integer beyond ±(2^53 − 1): send it as a string";
type JsonValueProblem = { path: string[]; message: string; params: { rule: "LONE_SURROGATE" | "NUL_CHARACTER" | "PROTO_KEY" | "UNSAFE_INTEGER" } };
export function jsonValueProblems(value: unknown, path: string[] = []): JsonValueProblem[] {
  /** What is wrong with one string of it (`prefix`: "keys " for a key), if anything. */
  const textProblem = (s: string, prefix = ""): JsonValueProblem[] => {
    if (!s.isWellFormed()) return [{ path, message: `${prefix}${LONE_SURROGATE}`, params: { rule: "LONE_SURROGATE" } }];
    if (hasNul(s)) return [{ path, message: `${prefix}${NUL_CHARACTER}`, params: { rule: "NUL_CHARACTER" } }];
    return [];
  };
  if (typeof value === "string") return textProblem(value);
  if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    return [{ path, message: UNSAFE_INTEGER, params: { rule: "UNSAFE_INTEGER" } }];
  }
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, v]) => {
    if (key === "__proto__") return [{ path, message: "must not contain the key __proto__", params: { rule: "PROTO_KEY" as const } }];
    const keyProblem = textProblem(key, "keys ");
    return keyProblem.length > 0 ? keyProblem : jsonValueProblems(v, [...path, key]);
  });
}

/**
 * Control characters and spaces: the URL parser silently drops tabs and line breaks and encodes
 * spaces, so "https://shop.ru/ok\r\nSet-Cookie: a=b" parsed as a fine URL and was stored and
 * echoed as sent, ready to split a header wherever the merchant puts it in a Location.
 */
const NOT_IN_A_URL = /[\u0000-\u0020\u007f-\u009f]/;

/** Return links: https:// URLs (t.me included), tg:// deep links, or bare t.me/... links. */
export function isAllowedReturnUrl(value: string): boolean {
  if (NOT_IN_A_URL.test(value)) return false;
  if (/^t\.me\/\S+$/i.test(value)) return true;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === "tg:") return value.toLowerCase().startsWith("tg://") && value.length > 5;
  // "https:shop.ru" parses as https://shop.ru/ too, but is not what the merchant meant to echo.
  return url.protocol === "https:" && value.toLowerCase().startsWith("https://") && url.hostname.length > 0;
}

export const ReturnUrl = Text.max(300).refine(isAllowedReturnUrl, { message: "must be a link with scheme https, t.me or tg://, without spaces or control characters", params: { rule: "RETURN_URL" } });

/** Unix epoch milliseconds → ISO string; the wire format of every timestamp. */
export const IsoDateTime = z.iso.datetime({ offset: true });
