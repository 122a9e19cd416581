import { providerCallbackSigningInput } from "@payaccept/contracts";
import { hmacSha256Hex } from "@payaccept/platform";

export const TIMESTAMP_HEADER = "X-Acquirer-Timestamp";
export const SIGNATURE_HEADER = "X-Acquirer-Signature";

/** Headers of one delivery attempt: a fresh timestamp and the signature over `${timestamp}.${body}`. */
export function signedHeaders(secret: string, rawBody: string, nowMs: number): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    "Content-Type": "application/json",
    [TIMESTAMP_HEADER]: timestamp,
    [SIGNATURE_HEADER]: hmacSha256Hex(secret, providerCallbackSigningInput(timestamp, rawBody)),
  };
}
