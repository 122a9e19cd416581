import { PROVIDER_CALLBACK_MAX_SKEW_MS, providerCallbackSigningInput } from "@payaccept/contracts";
import { hmacSha256Hex, safeEqual } from "@payaccept/platform";

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/**
 * A callback is genuine when X-Acquirer-Signature is HMAC-SHA256(secret, "<timestamp>.<raw body>")
 * and the timestamp is within five minutes of now either way, so a captured callback cannot be
 * replayed later.
 */
export function verifyCallbackSignature(input: {
  secret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: string;
  nowMs: number;
}): SignatureCheck {
  const { timestamp, signature } = input;
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "missing or malformed X-Acquirer-Timestamp" };
  if (!signature) return { ok: false, reason: "missing X-Acquirer-Signature" };
  if (Math.abs(input.nowMs - Number(timestamp) * 1000) > PROVIDER_CALLBACK_MAX_SKEW_MS) return { ok: false, reason: "timestamp outside the 5-minute window" };
  const expected = hmacSha256Hex(input.secret, providerCallbackSigningInput(timestamp, input.rawBody));
  if (!safeEqual(expected, signature.toLowerCase())) return { ok: false, reason: "signature mismatch" };
  return { ok: true };
}
