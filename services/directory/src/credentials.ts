import { randomToken, sha256Hex } from "@payaccept/platform";

/** The prefix tells a leaked key's kind at a glance (and lets secret scanners match it). */
export const apiKeyPrefix = (sandbox: boolean) => (sandbox ? "pk_test_" : "pk_live_");
const DISPLAY_CHARS = 4;

export type IssuedApiKey = { apiKey: string; keyHash: string; displayPrefix: string };

/** A new API key: prefix + 32 random bytes (base64url). Only its SHA-256 is ever stored. */
export function issueApiKey(sandbox: boolean): IssuedApiKey {
  const prefix = apiKeyPrefix(sandbox);
  const apiKey = prefix + randomToken(32);
  return { apiKey, keyHash: sha256Hex(apiKey), displayPrefix: apiKey.slice(0, prefix.length + DISPLAY_CHARS) };
}

export const issueSigningSecret = () => `whsec_${randomToken(32)}`;
