import { hmacSha256Hex } from "@payaccept/platform";

/**
 * Spec §5.2 headers for one attempt: the legacy signature of the raw body, the send time, and the
 * v2 signature of "{timestamp}.{body}". Recomputed on every attempt; the body never changes.
 */
export function signatureHeaders(body: string, secret: string, unixSeconds: number): Record<string, string> {
  const timestamp = String(unixSeconds);
  return {
    "X-Signature": hmacSha256Hex(secret, body),
    "X-Timestamp": timestamp,
    "X-Signature-V2": hmacSha256Hex(secret, `${timestamp}.${body}`),
  };
}
