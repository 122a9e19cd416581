import { expect, test } from "bun:test";
import { sha256Hex } from "@payaccept/platform";
import { issueApiKey, issueSigningSecret } from "./credentials.ts";

test("an API key carries its kind, 32 random bytes, and is kept only as its SHA-256", () => {
  const live = issueApiKey(false);
  expect(live.apiKey).toMatch(/^pk_live_[A-Za-z0-9_-]{43}$/);
  expect(live.keyHash).toBe(sha256Hex(live.apiKey));
  expect(live.displayPrefix).toBe(live.apiKey.slice(0, 12));
  expect(issueApiKey(true).apiKey).toMatch(/^pk_test_/);
  expect(issueApiKey(false).apiKey).not.toBe(live.apiKey);
});

test("signing secrets are distinct random tokens", () => {
  const a = issueSigningSecret();
  expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  expect(issueSigningSecret()).not.toBe(a);
});
