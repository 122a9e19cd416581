import type { ShopRecord } from "@payaccept/contracts";
import { hmacSha256Hex } from "@payaccept/platform";

/**
 * The header that carries one signature per live secret, in Stripe's format (`t=<X-Timestamp>,
 * v1=<hex>[,v1=<hex>]`, each v1 the HMAC-SHA256 hex of "{t}.{raw body}"): during a secret's
 * overlap it lists the new secret's signature and the retiring one's, so a receiver verifies with
 * whichever secret it holds (docs/webhooks.md, "Rotating the signing secret").
 */
export const SIGNATURE_SET_HEADER = "Payaccept-Signature";

/** The secrets a webhook is signed with: the shop's, and while its overlap lasts the one it replaced. */
export type SigningSecrets = { secret: string; retiringSecret?: string };

/** The shop's secrets at `nowMs` (the store's clock): a retiring secret past its expiry signs nothing more. */
export function signingSecretsOf(shop: ShopRecord, nowMs: number): SigningSecrets {
  const retiring = shop.retiringSecret;
  return retiring && Date.parse(retiring.expiresAt) > nowMs ? { secret: shop.signingSecret, retiringSecret: retiring.signingSecret } : { secret: shop.signingSecret };
}

/**
 * Spec §5.2 headers for one attempt: the legacy signature of the raw body, the send time, and the
 * v2 signature of "{timestamp}.{body}", plus the signature set. Recomputed on every attempt; the
 * body never changes. During an overlap the spec's single-signature headers keep the RETIRING
 * secret's signature, so a receiver that checks only them goes on working until it switches to
 * the new secret (at the overlap's end at the latest); the set carries both.
 */
export function signatureHeaders(body: string, secrets: SigningSecrets, unixSeconds: number): Record<string, string> {
  const timestamp = String(unixSeconds);
  const signed = `${timestamp}.${body}`;
  const v2 = hmacSha256Hex(secrets.secret, signed);
  // X-Signature-V2 is the set's v1 of the same secret: computed once.
  const retiringV2 = secrets.retiringSecret === undefined ? undefined : hmacSha256Hex(secrets.retiringSecret, signed);
  return {
    "X-Signature": hmacSha256Hex(secrets.retiringSecret ?? secrets.secret, body),
    "X-Timestamp": timestamp,
    "X-Signature-V2": retiringV2 ?? v2,
    [SIGNATURE_SET_HEADER]: retiringV2 === undefined ? `t=${timestamp},v1=${v2}` : `t=${timestamp},v1=${v2},v1=${retiringV2}`,
  };
}
