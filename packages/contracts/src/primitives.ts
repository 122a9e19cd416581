import { z } from "zod";

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

export const PAYOUT_STATUSES = ["PENDING", "PAID", "FAILED"] as const;
export const PayoutStatus = z.enum(PAYOUT_STATUSES);
export type PayoutStatus = z.infer<typeof PayoutStatus>;

export const Uuid = z.uuid({ message: "must be a UUID" });

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
 * drop it or set a prototype instead, so it cannot be echoed faithfully: it is refused.
 */
type JsonValueProblem = { path: string[]; message: string; params: { rule: "LONE_SURROGATE" | "NUL_CHARACTER" | "PROTO_KEY" } };
export function jsonValueProblems(value: unknown, path: string[] = []): JsonValueProblem[] {
  /** What is wrong with one string of it (`prefix`: "keys " for a key), if anything. */
  const textProblem = (s: string, prefix = ""): JsonValueProblem[] => {
    if (!s.isWellFormed()) return [{ path, message: `${prefix}${LONE_SURROGATE}`, params: { rule: "LONE_SURROGATE" } }];
    if (hasNul(s)) return [{ path, message: `${prefix}${NUL_CHARACTER}`, params: { rule: "NUL_CHARACTER" } }];
    return [];
  };
  if (typeof value === "string") return textProblem(value);
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, v]) => {
    if (key === "__proto__") return [{ path, message: "must not contain the key __proto__", params: { rule: "PROTO_KEY" as const } }];
    const keyProblem = textProblem(key, "keys ");
    return keyProblem.length > 0 ? keyProblem : jsonValueProblems(v, [...path, key]);
  });
}

/** Return links: https URLs (t.me included), tg:// deep links, or bare t.me/... links. */
export function isAllowedReturnUrl(value: string): boolean {
  if (/^t\.me\/\S+$/i.test(value)) return true;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === "tg:") return value.toLowerCase().startsWith("tg://") && value.length > 5;
  return url.protocol === "https:" && url.hostname.length > 0;
}

export const ReturnUrl = Text.max(300).refine(isAllowedReturnUrl, { message: "must be a link with scheme https, t.me or tg://", params: { rule: "RETURN_URL" } });

/** Unix epoch milliseconds → ISO string; the wire format of every timestamp. */
export const IsoDateTime = z.iso.datetime({ offset: true });
