import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import type { WebhookBody } from "@payaccept/contracts";
import type { WebhookEvent } from "./event.ts";
import { verifyWebhook } from "./verify.ts";

const SECRET = "whsec_3b1f";
const NOW = Date.parse("2026-03-01T12:00:00Z");
const TS = String(NOW / 1000);
// As the dispatcher sends it: compact JSON, non-ASCII left as is.
const BODY = '{"id":"0b0f3c1e-8a57-4a37-9c3b-3f0c1d7e9a10","orderId":"A-17","status":"SUCCESS","amountKopecks":125000,"telegramId":null,"metadata":{"note":"заказ №7"},"test":false}';

const hmac = (data: string) => createHmac("sha256", SECRET).update(data, "utf8").digest("hex");
function signed(body = BODY, ts = TS): Record<string, string> {
  return { "content-type": "application/json", "x-signature": hmac(body), "x-timestamp": ts, "x-signature-v2": hmac(`${ts}.${body}`) };
}
const at = (now = NOW) => ({ now });

describe("verifyWebhook: v2 scheme", () => {
  test("accepts the raw body as a string, bytes or an ArrayBuffer, with Headers or a Node-style record", () => {
    const bytes = new TextEncoder().encode(BODY);
    for (const raw of [BODY, bytes, bytes.buffer]) {
      const result = verifyWebhook(raw, signed(), SECRET, at());
      expect(result).toEqual({ ok: true, scheme: "v2", event: JSON.parse(BODY) });
    }
    expect(verifyWebhook(BODY, new Headers(signed()), SECRET, at()).ok).toBe(true);
    const mixedCase = { "X-Timestamp": TS, "X-Signature-V2": [hmac(`${TS}.${BODY}`)] };
    expect(verifyWebhook(BODY, mixedCase, SECRET, at()).ok).toBe(true);
    expect(verifyWebhook(BODY, signed(), SECRET, { now: new Date(NOW) }).ok).toBe(true);
  });

  test("a re-serialised body fails, and the message says why that usually happens", () => {
    const pretty = JSON.stringify(JSON.parse(BODY), null, 2);
    const result = verifyWebhook(pretty, signed(), SECRET, at());
    expect(result).toMatchObject({ ok: false, reason: "signature_mismatch" });
    expect(!result.ok && result.message).toContain("parsed and serialised again");
  });

  test.each([
    ["another secret", () => verifyWebhook(BODY, signed(), "whsec_other", at())],
    ["a changed amount", () => verifyWebhook(BODY.replace("125000", "925000"), signed(), SECRET, at())],
    ["a timestamp changed after signing", () => verifyWebhook(BODY, { ...signed(), "x-timestamp": String(Number(TS) + 1) }, SECRET, at())],
    ["the legacy signature put in the v2 header", () => verifyWebhook(BODY, { ...signed(), "x-signature-v2": hmac(BODY) }, SECRET, at())],
  ])("%s: signature_mismatch", (_, run) => {
    expect(run()).toMatchObject({ ok: false, reason: "signature_mismatch" });
  });

  test("freshness: 5 minutes either way by default, configurable", () => {
    expect(verifyWebhook(BODY, signed(), SECRET, at(NOW + 300_000)).ok).toBe(true);
    expect(verifyWebhook(BODY, signed(), SECRET, at(NOW + 301_000))).toMatchObject({ ok: false, reason: "stale_timestamp" });
    expect(verifyWebhook(BODY, signed(), SECRET, at(NOW - 300_000)).ok).toBe(true);
    expect(verifyWebhook(BODY, signed(), SECRET, at(NOW - 301_000))).toMatchObject({ ok: false, reason: "future_timestamp" });
    expect(verifyWebhook(BODY, signed(), SECRET, { now: NOW + 61_000, toleranceSeconds: 60 })).toMatchObject({ reason: "stale_timestamp" });
  });

  test("a replayed request, correctly signed but old, is refused", () => {
    const old = String(NOW / 1000 - 3600);
    expect(verifyWebhook(BODY, signed(BODY, old), SECRET, at())).toMatchObject({ ok: false, reason: "stale_timestamp" });
  });

  test.each([
    [{}, "missing_header", "X-Signature-V2"],
    [{ "x-signature-v2": hmac(`${TS}.${BODY}`) }, "missing_header", "X-Timestamp"],
    [{ ...signed(), "x-timestamp": "1700000000.5" }, "malformed_header", "X-Timestamp"],
    [{ ...signed(), "x-timestamp": "-5" }, "malformed_header", "X-Timestamp"],
    [{ ...signed(), "x-signature-v2": "abc" }, "malformed_header", "X-Signature-V2"],
    [{ ...signed(), "x-signature-v2": "z".repeat(64) }, "malformed_header", "X-Signature-V2"],
  ])("headers %j: %s", (headers, reason, named) => {
    const result = verifyWebhook(BODY, headers, SECRET, at());
    expect(result).toMatchObject({ ok: false, reason });
    expect(!result.ok && result.message).toContain(named);
  });

  test("upper-case hex is accepted", () => {
    const headers = signed();
    expect(verifyWebhook(BODY, { ...headers, "x-signature-v2": headers["x-signature-v2"]!.toUpperCase() }, SECRET, at()).ok).toBe(true);
  });
});

describe("verifyWebhook: legacy scheme", () => {
  const legacyOnly = () => ({ "x-signature": hmac(BODY) });

  test("refused by default, with a hint, because it cannot detect replays", () => {
    const result = verifyWebhook(BODY, legacyOnly(), SECRET, at());
    expect(result).toMatchObject({ ok: false, reason: "missing_header" });
    expect(!result.ok && result.message).toContain("allowLegacy");
  });

  test("accepted with allowLegacy, still over the raw bytes", () => {
    expect(verifyWebhook(BODY, legacyOnly(), SECRET, { allowLegacy: true })).toMatchObject({ ok: true, scheme: "legacy" });
    expect(verifyWebhook(` ${BODY}`, legacyOnly(), SECRET, { allowLegacy: true })).toMatchObject({ ok: false, reason: "signature_mismatch" });
  });

  test("v2 wins whenever it is present, even with allowLegacy", () => {
    const headers = { ...signed(), "x-signature-v2": "0".repeat(64) };
    expect(verifyWebhook(BODY, headers, SECRET, { ...at(), allowLegacy: true })).toMatchObject({ ok: false, reason: "signature_mismatch" });
  });
});

describe("verifyWebhook: the body", () => {
  test("an unknown status is a valid event (the set may grow)", () => {
    const body = BODY.replace('"SUCCESS"', '"PARTIALLY_REFUNDED"');
    expect(verifyWebhook(body, signed(body), SECRET, at())).toMatchObject({ ok: true, event: { status: "PARTIALLY_REFUNDED" } });
  });

  test.each([["not json"], ['{"id":"x"}'], ['{"id":"x","orderId":"o","status":"SUCCESS","amountKopecks":1.5,"telegramId":null}'], ["[1,2]"]])(
    "correctly signed but not a webhook event: %s",
    (body) => {
      expect(verifyWebhook(body, signed(body), SECRET, at())).toMatchObject({ ok: false, reason: "malformed_body" });
    },
  );

  test("a body nested 30,000 deep (issue 20): unsigned, refused before it is parsed; signed, parsed and handed over like any other", () => {
    const deep = `${"[".repeat(30_000)}${"]".repeat(30_000)}`;
    const body = BODY.replace('{"note":"заказ №7"}', `{"note":${deep}}`);
    expect(verifyWebhook(body, signed(), SECRET, at())).toMatchObject({ ok: false, reason: "signature_mismatch" });
    const result = verifyWebhook(body, signed(body), SECRET, at());
    expect(result.ok && JSON.stringify(result.event.metadata) === `{"note":${deep}}`).toBe(true);
    expect(verifyWebhook(deep, signed(deep), SECRET, at())).toMatchObject({ ok: false, reason: "malformed_body" });
  });

  test("the statuses of holds and saved methods arrive with their extras, typed", () => {
    const method = { id: "0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e", method: "CARD", card: { brand: "VISA", last4: "4242", expMonth: 12, expYear: 2030 }, sbp: null };
    const held = BODY.replace('"SUCCESS"', '"AUTHORIZED"').replace('"test":false', `"test":false,"capture":false,"heldKopecks":125000,"captureDeadline":"2026-03-08T12:00:00.000Z","paymentMethod":${JSON.stringify(method)}`);
    const hold = verifyWebhook(held, signed(held), SECRET, at());
    expect(hold.ok && hold.event.status === "AUTHORIZED" && hold.event.captureDeadline).toBe("2026-03-08T12:00:00.000Z");
    const saved = { ...method, status: "REVOKED", customerId: "c-1", paymentId: "0b0f3c1e-8a57-4a37-9c3b-3f0c1d7e9a10", isTest: false, createdAt: "2026-03-01T12:00:00.000Z", deactivatedAt: "2026-03-02T12:00:00.000Z", revokedBy: "PAYER" };
    const ended = BODY.replace('"SUCCESS"', '"PAYMENT_METHOD_REVOKED"').replace('"test":false', `"test":false,"paymentMethod":${JSON.stringify(saved)}`);
    const revoked = verifyWebhook(ended, signed(ended), SECRET, at());
    expect(revoked.ok && revoked.event.status === "PAYMENT_METHOD_REVOKED" && revoked.event.paymentMethod).toMatchObject({ status: "REVOKED", revokedBy: "PAYER", card: { last4: "4242" } });
  });

  test("the SDK's event type and the contract's WebhookBody stay the same shape", () => {
    type Same = [WebhookBody] extends [WebhookEvent] ? ([WebhookEvent] extends [WebhookBody] ? true : false) : false;
    const same: Same = true;
    expect(same).toBe(true);
  });
});

describe("verifyWebhook: the signature set (Payaccept-Signature, one v1 per live secret)", () => {
  const NEW = "whsec_new";
  const sign = (secret: string, ts = TS, body = BODY) => createHmac("sha256", secret).update(`${ts}.${body}`, "utf8").digest("hex");
  // During a rotation's overlap: the new secret's and the retiring one's; the single headers carry the retiring one's.
  const overlapping = (ts = TS) => ({ ...signed(BODY, ts), "payaccept-signature": `t=${ts},v1=${sign(NEW, ts)},v1=${sign(SECRET, ts)}` });

  test("either secret verifies a webhook signed with both", () => {
    expect(verifyWebhook(BODY, overlapping(), NEW, at())).toEqual({ ok: true, scheme: "signature-set", event: JSON.parse(BODY) });
    expect(verifyWebhook(BODY, overlapping(), SECRET, at())).toMatchObject({ ok: true, scheme: "signature-set" });
    expect(verifyWebhook(BODY, new Headers(overlapping()), NEW, at()).ok).toBe(true);
    expect(verifyWebhook(BODY, overlapping(), "whsec_other", at())).toMatchObject({ ok: false, reason: "signature_mismatch" });
    expect(verifyWebhook(BODY.replace("125000", "925000"), overlapping(), NEW, at())).toMatchObject({ ok: false, reason: "signature_mismatch" });
  });

  test("after the overlap one signature again: only the new secret", () => {
    const single = { "payaccept-signature": `t=${TS},v1=${sign(NEW)}` };
    expect(verifyWebhook(BODY, single, NEW, at()).ok).toBe(true);
    expect(verifyWebhook(BODY, single, SECRET, at())).toMatchObject({ ok: false, reason: "signature_mismatch" });
  });

  test("its timestamp is held to the same freshness, and it cannot be swapped for another", () => {
    expect(verifyWebhook(BODY, overlapping(), NEW, at(NOW + 301_000))).toMatchObject({ ok: false, reason: "stale_timestamp" });
    const later = String(Number(TS) + 60);
    const moved = { "payaccept-signature": `t=${later},v1=${sign(NEW)}` };
    expect(verifyWebhook(BODY, moved, NEW, at())).toMatchObject({ ok: false, reason: "signature_mismatch" });
  });

  test.each([
    ["no timestamp", `v1=${"a".repeat(64)}`],
    ["two timestamps", `t=${TS},t=${TS},v1=${"a".repeat(64)}`],
    ["no signature", `t=${TS}`],
    ["a short signature", `t=${TS},v1=abc`],
  ])("%s: malformed_header", (_, value) => {
    expect(verifyWebhook(BODY, { "payaccept-signature": value }, NEW, at())).toMatchObject({ ok: false, reason: "malformed_header" });
  });
});
