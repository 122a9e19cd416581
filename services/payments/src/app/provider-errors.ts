import { DomainError } from "@payaccept/contracts";
import { ProviderError } from "../provider/port.ts";

/** A provider failure as the error payments' caller sees: unavailable → 503, a refusal → 502. */
export function providerFailure(e: unknown): never {
  if (e instanceof ProviderError) throw new DomainError(e.kind === "unavailable" ? "PROVIDER_UNAVAILABLE" : "PROVIDER_REFUSED");
  throw e;
}
