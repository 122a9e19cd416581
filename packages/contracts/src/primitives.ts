import { z } from "zod";
import type { Reason } from "./reasons.ts";

/**
 * §3's statuses and AUTHORIZED (docs/payments.md, "Two-stage payments"): a card hold the buyer
 * paid, waiting for the merchant's capture or void. Only a payment created with `capture: false`
 * ever has it.
 */
export const PAYMENT_STATUSES = ["CREATED", "PENDING", "AUTHORIZED", "SUCCESS", "FAILED", "EXPIRED", "REFUNDED", "CANCELED"] as const;
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

/**
 * A payout's life (docs/balance.md, "Payout statuses"): PENDING (money taken from available,
 * waiting to be sent) → SENT (a payment order handed to the bank: an exchange file made, or the
 * bank's API took it) → PAID (the bank statement or the bank's API shows it debited), or FAILED
 * (refused before it was debited) / RETURNED (debited, then sent back by the recipient's bank):
 * those two put the amount back on the available balance, once.
 */
export const PAYOUT_STATUSES = ["PENDING", "SENT", "PAID", "FAILED", "RETURNED"] as const;
export const PayoutStatus = z.enum(PAYOUT_STATUSES);
export type PayoutStatus = z.infer<typeof PayoutStatus>;

export const Uuid = z.uuid({ message: "must be a UUID" });

/** A positive integer query parameter (query values arrive as strings), with its default. */
export const intParam = (min: number, max: number, dflt: number) =>
  z
    .string()
    .regex(/^\d+$/, { message: `must be an integer from ${min} to ${max}` })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .prefault(String(dflt));
/**
 * An id the merchant sends back (a path, a cursor). UUIDs are case-insensitive on input (RFC 9562
 * §4) and ours are written in lowercase, which the stores compare byte for byte: a client that
 * keeps ids in capitals (SQL Server's uniqueidentifier, some .NET code) must find the same payment.
 */
export const UuidInput = Uuid.transform((s) => s.toLowerCase());

export const MIN_AMOUNT_KOPECKS = 100;
export const MAX_AMOUNT_KOPECKS = 10_000_000_000;
export const METADATA_MAX_BYTES = 4096;
const utf8 = new TextEncoder();

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
/** Where a value sits, linked to its parent's place: a path is spelled out only for a problem found there. */
type Place = { key: string; up: Place } | undefined;
const pathOf = (place: Place): string[] => {
  const keys: string[] = [];
  for (let p = place; p; p = p.up) keys.push(p.key);
  return keys.reverse();
};

/**
 * The problems in document order. Walked with a stack of its own, not by recursion: a client's
 * document nested 30,000 deep (60 KB) overflowed the call stack, and was a 500 (issue 20).
 */
export function jsonValueProblems(value: unknown): JsonValueProblem[] {
  const problems: JsonValueProblem[] = [];
  /** What is wrong with one string of it (`prefix`: "keys " for a key), if anything. */
  const textProblem = (s: string, place: Place, prefix = ""): JsonValueProblem | undefined => {
    if (!s.isWellFormed()) return { path: pathOf(place), message: `${prefix}${LONE_SURROGATE}`, params: { rule: "LONE_SURROGATE" } };
    if (hasNul(s)) return { path: pathOf(place), message: `${prefix}${NUL_CHARACTER}`, params: { rule: "NUL_CHARACTER" } };
    return undefined;
  };
  // An entry: its key (none for the top), its value and the place of the object holding it.
  const todo: { key?: string; value: unknown; parent: Place }[] = [{ value, parent: undefined }];
  for (let entry = todo.pop(); entry !== undefined; entry = todo.pop()) {
    const { key, value: v, parent } = entry;
    let place = parent;
    if (key !== undefined) {
      const keyProblem = key === "__proto__" ? { path: pathOf(parent), message: "must not contain the key __proto__", params: { rule: "PROTO_KEY" as const } } : textProblem(key, parent, "keys ");
      if (keyProblem) {
        problems.push(keyProblem);
        continue;
      }
      place = { key, up: parent };
    }
    if (typeof v === "string") {
      const problem = textProblem(v, place);
      if (problem) problems.push(problem);
    } else if (typeof v === "number" && Number.isInteger(v) && !Number.isSafeInteger(v)) {
      problems.push({ path: pathOf(place), message: UNSAFE_INTEGER, params: { rule: "UNSAFE_INTEGER" } });
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) todo.push({ key: entries[i]![0], value: entries[i]![1], parent: place });
    }
  }
  return problems;
}

/**
 * Whether a JSON value takes at most maxBytes as UTF-8 JSON. Every value takes at least a byte,
 * so one with more values than that is too large without being serialised: JSON.stringify
 * overflows the call stack on a document nested about 40,000 deep, which a 64 KB body can come
 * close to.
 */
export function jsonFitsIn(value: unknown, maxBytes: number): boolean {
  let values = 0;
  for (const todo = [value]; todo.length > 0; ) {
    const v = todo.pop();
    if (++values > maxBytes) return false;
    if (v !== null && typeof v === "object") for (const child of Object.values(v)) todo.push(child);
  }
  return utf8.encode(JSON.stringify(value)).byteLength <= maxBytes;
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
