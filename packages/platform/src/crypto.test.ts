import { expect, test } from "bun:test";
import { createHash, createHmac } from "node:crypto";
import { hmacSha256Hex, sha256Hex } from "./crypto.ts";

test("sha256Hex is SHA-256 in hex: the standard's vectors, and node:crypto's digest of UTF-8 text", () => {
  // FIPS 180-2, appendix B.1, and the empty message.
  expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // Stored key hashes were made by node:crypto from the key's UTF-8 bytes: the same text gives the same hash.
  for (const s of ["pk_live_4f9c2b7e1a6d", "ключ 日本 \u{1F600}", "x".repeat(10_000)]) expect(sha256Hex(s)).toBe(createHash("sha256").update(s).digest("hex"));
});

test("hmacSha256Hex is node:crypto's HMAC-SHA256 in hex, for text and bytes, any key", () => {
  // RFC 4231, test case 2.
  expect(hmacSha256Hex("Jefe", "what do ya want for nothing?")).toBe("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  for (const key of ["", "whsec_4f9c2b7e1a6d", "ключ \u{1F600}", "k".repeat(200)])
    for (const data of ["", "1800000000.{\"id\":\"p-1\"}", "тело", new TextEncoder().encode("bytes")])
      expect(hmacSha256Hex(key, data)).toBe(createHmac("sha256", key).update(data).digest("hex"));
});
