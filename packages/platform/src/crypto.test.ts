import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { sha256Hex } from "./crypto.ts";

test("sha256Hex is SHA-256 in hex: the standard's vectors, and node:crypto's digest of UTF-8 text", () => {
  // FIPS 180-2, appendix B.1, and the empty message.
  expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // Stored key hashes were made by node:crypto from the key's UTF-8 bytes: the same text gives the same hash.
  for (const s of ["pk_live_4f9c2b7e1a6d", "ключ 日本 \u{1F600}", "x".repeat(10_000)]) expect(sha256Hex(s)).toBe(createHash("sha256").update(s).digest("hex"));
});
