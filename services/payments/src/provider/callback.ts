import { DomainError, invalidRequest, PROVIDER_CALLBACK_EVENTS, ProviderCallback, ProviderCallbackKnown } from "@payaccept/contracts";
import { verifyCallbackSignature } from "./callback-signature.ts";
import type { ProviderFailure } from "./port.ts";
import { declineFailure } from "./provider-reasons.ts";

/**
 * A verified callback: the wire body (any event), and for an event the protocol knows its typed
 * form with what it must carry, plus a decline's reason in the catalogue's terms.
 */
export type ReadCallback = { callback: ProviderCallback; known: ProviderCallbackKnown | null; failure: ProviderFailure | null };

/**
 * Verifies and reads a provider callback (docs/acquirer-protocol.md, "Callbacks"): the signature
 * over timestamp and raw body, then the JSON, then the event's own fields. Throws the DomainError
 * to answer with: 401 for a signature that does not verify, 400 for a body that does not read.
 * An event this build does not know reads with `known: null`, to be acknowledged and ignored.
 */
export function readProviderCallback(input: { secret: string; timestamp: string | undefined; signature: string | undefined; rawBody: string; nowMs: number }): ReadCallback {
  const check = verifyCallbackSignature(input);
  if (!check.ok) throw new DomainError("CALLBACK_SIGNATURE_INVALID", { detail: check.reason });
  let json: unknown;
  try {
    json = JSON.parse(input.rawBody);
  } catch {
    throw new DomainError("MALFORMED_JSON");
  }
  const parsed = ProviderCallback.safeParse(json);
  if (!parsed.success) throw invalidRequest(parsed.error);
  const callback = parsed.data;
  if (!(PROVIDER_CALLBACK_EVENTS as readonly string[]).includes(callback.event)) return { callback, known: null, failure: null };
  const known = ProviderCallbackKnown.safeParse(json);
  if (!known.success) throw invalidRequest(known.error);
  return { callback, known: known.data, failure: known.data.event === "DECLINED" ? declineFailure(known.data.reason) : null };
}
