import { expect, test } from "bun:test";
import { isValidInn } from "./inn.ts";

test("an INN passes only with its check digits: 10 digits for a company, 12 for a person", () => {
  // АТОЛ Онлайн's published test company, and the tax service's own INNs.
  for (const inn of ["5544332219", "7707329152", "7728168971", "500100732259"]) expect(isValidInn(inn)).toBe(true);
  // One digit off, the wrong length, not digits.
  for (const inn of ["5544332218", "7707329153", "500100732258", "500100732249", "554433221", "55443322190", "55443322 9", "ИНН5544332219"]) expect(isValidInn(inn)).toBe(false);
});
