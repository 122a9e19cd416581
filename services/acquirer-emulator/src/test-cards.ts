/**
 * The emulator's card rules (docs/acquirer-protocol.md). Any other number that passes the Luhn
 * check is approved, as test acquirers usually do, so a developer's own test numbers work.
 */
export type CardDecision = "approve" | "decline" | "challenge";

const TEST_CARDS: Record<string, CardDecision> = {
  "4111111111111111": "approve",
  "4000000000000002": "decline",
  "4000000000003220": "challenge",
};

export const decideCard = (pan: string): CardDecision => TEST_CARDS[pan] ?? "approve";

/** The one 3-D Secure code that passes; anything else declines the payment. */
export const THREE_DS_PASSING_CODE = "123456";
