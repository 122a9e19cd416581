import { DomainError } from "@payaccept/contracts";
import { ProviderError } from "../provider/port.ts";

/** A provider failure as the error payments' caller sees: unavailable → 503, a refusal → 502. */
export function providerFailure(e: unknown, what: string): never {
  if (e instanceof ProviderError) {
    throw e.kind === "unavailable"
      ? new DomainError("UNAVAILABLE", `the payment provider is unavailable; ${what} did not happen, try again`)
      : new DomainError("BAD_GATEWAY", `the payment provider refused ${what}`);
  }
  throw e;
}
