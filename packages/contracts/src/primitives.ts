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

export const Uuid = z.uuid({ message: "must be a UUID" });

export const MIN_AMOUNT_KOPECKS = 100;
export const MAX_AMOUNT_KOPECKS = 10_000_000_000;
export const METADATA_MAX_BYTES = 4096;

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

export const ReturnUrl = z
  .string()
  .max(300)
  .refine(isAllowedReturnUrl, { message: "must be a link with scheme https, t.me or tg://" });

/** Unix epoch milliseconds → ISO string; the wire format of every timestamp. */
export const IsoDateTime = z.iso.datetime({ offset: true });
