import { expect, test } from "bun:test";
import { savedMethodLabel } from "./saved-method.ts";

test("a card is its network, last 4 digits and expiry; an SBP binding its bank", () => {
  const card = { brand: "MIR", last4: "0042", expMonth: 3, expYear: 2031 } as const;
  expect(savedMethodLabel({ card, sbp: null }, "ru")).toBe("Мир •• 0042, 03/31");
  expect(savedMethodLabel({ card: { ...card, brand: "VISA" }, sbp: null }, "en")).toBe("Visa •• 0042, 03/31");
  expect(savedMethodLabel({ card: null, sbp: { bankName: "Тестовый банк" } }, "ru")).toBe("СБП, Тестовый банк");
});
