import { expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { DEFAULT_TARIFF, type ShopRecord } from "@payaccept/contracts";
import { signatureHeaders, signingSecretsOf } from "./signature.ts";

const BODY = '{"id":"p-1","status":"SUCCESS"}';
const TS = 1_800_000_000;
const hmac = (secret: string, data: string) => createHmac("sha256", secret).update(data).digest("hex");
const shop = (retiring?: { signingSecret: string; expiresAt: string }): ShopRecord => ({
  shopId: "s",
  accountId: "a",
  name: "n",
  active: true,
  sandbox: true,
  methods: ["SBP"],
  tariff: DEFAULT_TARIFF,
  webhookUrl: "https://shop.example.com/h",
  signingSecret: "whsec_new",
  successUrl: null,
  failUrl: null,
  ...(retiring ? { retiringSecret: retiring } : {}),
  updatedAt: "2026-01-01T00:00:00Z",
});

test("one secret: the spec's headers and a set of one, all with it", () => {
  expect(signatureHeaders(BODY, signingSecretsOf(shop(), 0), TS)).toEqual({
    "X-Signature": hmac("whsec_new", BODY),
    "X-Timestamp": String(TS),
    "X-Signature-V2": hmac("whsec_new", `${TS}.${BODY}`),
    "Payaccept-Signature": `t=${TS},v1=${hmac("whsec_new", `${TS}.${BODY}`)}`,
  });
});

test("during an overlap the set lists both and the single headers keep the retiring secret's; past its expiry, one again", () => {
  const overlapping = shop({ signingSecret: "whsec_old", expiresAt: "2026-01-01T12:00:00Z" });
  const before = Date.parse("2026-01-01T11:59:59.999Z");
  expect(signatureHeaders(BODY, signingSecretsOf(overlapping, before), TS)).toEqual({
    "X-Signature": hmac("whsec_old", BODY),
    "X-Timestamp": String(TS),
    "X-Signature-V2": hmac("whsec_old", `${TS}.${BODY}`),
    "Payaccept-Signature": `t=${TS},v1=${hmac("whsec_new", `${TS}.${BODY}`)},v1=${hmac("whsec_old", `${TS}.${BODY}`)}`,
  });
  expect(signingSecretsOf(overlapping, Date.parse("2026-01-01T12:00:00Z"))).toEqual({ secret: "whsec_new" });
});
