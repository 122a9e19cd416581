import { WEBHOOK_RETRY_JITTER, type DeliveryResult, type Failure } from "@payaccept/contracts";
import { spreadLater, type Random } from "@payaccept/platform";
import type { AttemptOutcome } from "./delivery/send.ts";

export type NextStep = { result: DeliveryResult; retryInMs: number | null; lastError: Failure | null };

/**
 * Where a series goes after attempt number `attempt` (1-based): delivered on a 2xx; blocked for a
 * private address (retrying cannot help until the merchant changes the URL); otherwise the next
 * pause of the schedule, or exhausted when the schedule has none left.
 * The pause is the spec's, made up to WEBHOOK_RETRY_JITTER later at random, never earlier.
 */

export function nextStep(outcome: AttemptOutcome, attempt: number, retryDelays: readonly number[], random?: Random): NextStep {
  if (outcome.kind === "delivered") return { result: "delivered", retryInMs: null, lastError: null };
  if (outcome.kind === "blocked") return { result: "blocked", retryInMs: null, lastError: outcome.error };
  const delay = retryDelays[attempt - 1];
  if (delay === undefined) return { result: "exhausted", retryInMs: null, lastError: outcome.error };
  return { result: "pending", retryInMs: spreadLater(delay, WEBHOOK_RETRY_JITTER, random), lastError: outcome.error };
}
