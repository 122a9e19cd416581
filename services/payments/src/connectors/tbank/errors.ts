import type { SavedMethodStatus } from "@payaccept/contracts";
import type { ProviderFailure } from "../../provider/port.ts";

/**
 * T-Bank's error codes (the bank's "Коды ошибок" table) in the catalogue's terms: what a merchant
 * can act on. A code that is not listed is a plain PROVIDER_DECLINED naming it.
 */
const DECLINES: Record<string, ProviderFailure["reason"]> = {};
const add = (reason: ProviderFailure["reason"], codes: string[]) => codes.forEach((c) => (DECLINES[c] = reason));
add("INSUFFICIENT_FUNDS", ["103", "116", "1051", "5060"]);
add("CARD_EXPIRED", ["252", "1033", "1054"]);
add("CARD_LIMIT_EXCEEDED", ["119", "603", "1013", "1061", "1065", "1075", "1202", "1203", "1204", "5061", "5062"]);
add("CARD_DETAILS_INVALID", ["219", "508", "642", "1014", "1015", "1080", "1082"]);
add("AUTHENTICATION_FAILED", ["101", "511"]);
add("AUTHENTICATION_REQUIRED", ["106", "108", "1235"]);
add("CARD_DECLINED", ["99", "600", "1001", "1004", "1005", "1006", "1012", "1041", "1043", "1057", "1058", "1059", "1063", "5063", "5064", "5065", "5066", "5067"]);
add("METHOD_REVOKED", ["7", "107", "503", "3015"]);

/** A decline's code as the catalogue says it. */
export function declineOf(errorCode: string): ProviderFailure {
  const reason = DECLINES[errorCode];
  return reason ? { reason, params: {} } : { reason: "PROVIDER_DECLINED", params: { detail: `T-Bank error ${errorCode}` } };
}

/**
 * Codes after which the bank's outcome is unknown (its own failure, "try again later"): the
 * operation may or may not have been done, so it is looked up before anything is sent again.
 */
const UNKNOWN_OUTCOME = new Set(["3", "55", "100", "120", "123", "125", "401", "402", "3040", "9001", "9999"]);
export const outcomeUnknown = (errorCode: string) => UNKNOWN_OUTCOME.has(errorCode);

/** What a charge's decline says of the charged method: the card's expiry or its issuer's end of it. */
export function methodAfterDecline(errorCode: string): Extract<SavedMethodStatus, "EXPIRED" | "REVOKED"> | null {
  if (["252", "1033", "1054"].includes(errorCode)) return "EXPIRED";
  if (["7", "107", "503", "1041", "1043", "3015"].includes(errorCode)) return "REVOKED";
  return null;
}

/** The refusals of a Confirm or Cancel that mean "the payment is not in a status that allows it" (the bank's 4 and 8). */
export const wrongStatus = (errorCode: string) => errorCode === "4" || errorCode === "8";

/** CheckOrder's refusal for an OrderId the terminal has never seen (335): an empty history, not an error. */
export const orderUnknown = (errorCode: string) => errorCode === "335";
