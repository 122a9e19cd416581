import { z } from "zod";

/**
 * Idempotency keys of the merchant API (docs/gateway.md, "Idempotency keys"), in this NATS KV
 * bucket, written by every gateway replica:
 *   <sha256 hex of shopId and the key> → IdempotencyRecord
 * Entries expire IDEMPOTENCY_TTL_MS after their last write.
 */
export const IDEMPOTENCY_BUCKET = "idempotency";
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed";
/** 1–64 printable ASCII characters (space to tilde). */
export const IdempotencyKey = z.string().regex(/^[\x20-\x7e]{1,64}$/, { message: "must be 1 to 64 printable ASCII characters" });

/** The hash of method, path and body the key was first used with: another one is a 422. */
const Fingerprint = z.string();
export const IdempotencyRecord = z.discriminatedUnion("state", [
  /**
   * A request holds the key for a lease. leaseUntil is its end on the holder's clock (epoch ms),
   * read only by gateways of earlier releases: a gateway now lets a lease run out on its own
   * monotonic clock, counted from when it first met the claim (docs/gateway.md, "Idempotency keys").
   */
  z.object({ state: z.literal("pending"), fingerprint: Fingerprint, leaseUntil: z.number().int() }),
  /** The last attempt ended without a final answer (5xx, 503): the next one executes again. */
  z.object({ state: z.literal("retry"), fingerprint: Fingerprint }),
  /** The stored answer, replayed byte for byte. */
  z.object({ state: z.literal("done"), fingerprint: Fingerprint, status: z.number().int(), body: z.string() }),
]);
export type IdempotencyRecord = z.infer<typeof IdempotencyRecord>;
