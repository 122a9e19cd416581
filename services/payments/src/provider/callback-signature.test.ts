import { describe, expect, test } from "bun:test";
import { hmacSha256Hex } from "@payaccept/platform";
import { verifyCallbackSignature } from "./callback-signature.ts";

const secret = "callback-secret";
const rawBody = '{"event":"PAID","merchantPaymentId":"x"}';
const nowMs = 1_800_000_000_000;
const ts = String(nowMs / 1000);
const sign = (t: string, body = rawBody, key = secret) => hmacSha256Hex(key, `${t}.${body}`);

describe("verifyCallbackSignature", () => {
  test("accepts the signature of timestamp.body", () => {
    expect(verifyCallbackSignature({ secret, timestamp: ts, signature: sign(ts), rawBody, nowMs })).toEqual({ ok: true });
  });

  test("refuses a changed body, another key, or a missing header", () => {
    expect(verifyCallbackSignature({ secret, timestamp: ts, signature: sign(ts), rawBody: rawBody.replace("PAID", "DECLINED"), nowMs }).ok).toBe(false);
    expect(verifyCallbackSignature({ secret, timestamp: ts, signature: sign(ts, rawBody, "other"), rawBody, nowMs }).ok).toBe(false);
    expect(verifyCallbackSignature({ secret, timestamp: ts, signature: undefined, rawBody, nowMs }).ok).toBe(false);
    expect(verifyCallbackSignature({ secret, timestamp: undefined, signature: sign(ts), rawBody, nowMs }).ok).toBe(false);
    expect(verifyCallbackSignature({ secret, timestamp: "12.5", signature: sign("12.5"), rawBody, nowMs }).ok).toBe(false);
  });

  test("a signature over a different timestamp does not transfer", () => {
    const other = String(nowMs / 1000 - 1);
    expect(verifyCallbackSignature({ secret, timestamp: ts, signature: sign(other), rawBody, nowMs }).ok).toBe(false);
  });

  test("the window is five minutes either way", () => {
    const at = (offsetS: number) => String(nowMs / 1000 + offsetS);
    for (const off of [-300, 300]) expect(verifyCallbackSignature({ secret, timestamp: at(off), signature: sign(at(off)), rawBody, nowMs }).ok).toBe(true);
    for (const off of [-301, 301]) {
      expect(verifyCallbackSignature({ secret, timestamp: at(off), signature: sign(at(off)), rawBody, nowMs })).toEqual({
        ok: false,
        reason: "timestamp outside the 5-minute window",
      });
    }
  });
});
