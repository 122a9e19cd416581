/**
 * The emulator's card rules (docs/acquirer-emulator.md, "Test cards"). A card has two: what the card
 * form does with it (pay, decline, or ask for a 3-D Secure code) and how merchant-initiated charges
 * with its saved token behave. Any other number that passes the Luhn check is approved both ways,
 * as test acquirers usually do, so a developer's own test numbers work.
 */
export type CardDecision = "approve" | "decline" | "challenge";

export const CHARGE_PROFILES = ["approve", "insufficient_funds", "expired", "revoked", "authenticate", "drop"] as const;
export type ChargeProfile = (typeof CHARGE_PROFILES)[number];

type TestCard = { form: CardDecision; charges: ChargeProfile };

const TEST_CARDS: Record<string, TestCard> = {
  "4111111111111111": { form: "approve", charges: "approve" },
  "4000000000000002": { form: "decline", charges: "approve" },
  "4000000000003220": { form: "challenge", charges: "approve" },
  "4000000000009995": { form: "approve", charges: "insufficient_funds" },
  "4000000000000069": { form: "approve", charges: "expired" },
  "4000000000000119": { form: "approve", charges: "revoked" },
  "4000000000000341": { form: "approve", charges: "authenticate" },
  "4000000000000077": { form: "approve", charges: "drop" },
};

const OTHER_CARD: TestCard = { form: "approve", charges: "approve" };

export const decideCard = (pan: string): CardDecision => (TEST_CARDS[pan] ?? OTHER_CARD).form;

/** How charges with the token of this card behave; decided once, when the card is saved. */
export const chargeProfileOf = (pan: string): ChargeProfile => (TEST_CARDS[pan] ?? OTHER_CARD).charges;

/** The one 3-D Secure code that passes; anything else declines the payment. */
export const THREE_DS_PASSING_CODE = "123456";

/** Test rule of SBP charges (a binding has no card to choose): an amount ending in 51 kopecks finds too little money. */
export const SBP_INSUFFICIENT_FUNDS_KOPECKS = 51;
