import { describe, expect, test } from "bun:test";
import { TOTP } from "otpauth";
import { enrolmentUri, newRecoveryCodes, newTotpSecret, stepOf } from "./two-factor.ts";

/** RFC 6238's SHA-1 test secret ("12345678901234567890") in base32, and two of its published vectors. */
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

describe("TOTP codes", () => {
  test("the RFC 6238 test vectors match, each in its 30-second step", () => {
    // T = 59 s → 94287082 (8 digits); the 6-digit code is its last six.
    expect(stepOf(RFC_SECRET, "287082", 59_000)).toBe(1);
    // T = 1111111109 s → 07081804.
    expect(stepOf(RFC_SECRET, "081804", 1_111_111_109_000)).toBe(37_037_036);
  });

  test("a code is accepted from the step before to the step after, and not beyond", () => {
    const secret = "JBSWY3DPEHPK3PXP";
    const app = new TOTP({ secret, algorithm: "SHA1", digits: 6, period: 30 });
    const now = 1_800_000_015_000;
    const step = Math.floor(now / 30_000);
    for (const delta of [-1, 0, 1]) expect(stepOf(secret, app.generate({ timestamp: (step + delta) * 30_000 }), now)).toBe(step + delta);
    for (const delta of [-3, -2, 2, 3]) expect(stepOf(secret, app.generate({ timestamp: (step + delta) * 30_000 }), now)).toBeUndefined();
    expect(newTotpSecret()).toMatch(/^[A-Z2-7]{32}$/);
  });

  test("the enrolment URI names the issuer and the person, with the secret", () => {
    const uri = enrolmentUri("JBSWY3DPEHPK3PXP", "owner@example.com");
    expect(uri).toStartWith("otpauth://totp/payaccept:owner%40example.com?");
    expect(new URL(uri).searchParams.get("secret")).toBe("JBSWY3DPEHPK3PXP");
    expect(new URL(uri).searchParams.get("issuer")).toBe("payaccept");
  });
});

test("recovery codes: ten distinct, readable, stored only as hashes", () => {
  const { shown, hashes } = newRecoveryCodes();
  expect(shown).toHaveLength(10);
  expect(new Set(shown).size).toBe(10);
  for (const code of shown) expect(code).toMatch(/^[abcdefghjkmnpqrstuvwxyz23456789]{5}-[abcdefghjkmnpqrstuvwxyz23456789]{5}$/);
  expect(hashes.every((h) => /^[0-9a-f]{64}$/.test(h))).toBe(true);
  expect(hashes.some((h) => shown.some((c) => h.includes(c)))).toBe(false);
});
