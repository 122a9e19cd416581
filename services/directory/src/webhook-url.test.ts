import { describe, expect, test } from "bun:test";
import { webhookUrlProblems } from "./webhook-url.ts";

const strict = { allowPrivate: false };
const dev = { allowPrivate: true };
/** The rule of each problem (zod's issue code for one that is not ours). */
const rulesOf = (url: string, sandbox: boolean, policy: typeof strict) =>
  webhookUrlProblems(url, sandbox, policy, "webhookUrl").map((i) => i.params.rule ?? i.issue);

describe("webhookUrlProblems", () => {
  test("a public https URL is fine for live and sandbox shops", () => {
    expect(rulesOf("https://shop.example.com/webhooks?x=1", false, strict)).toEqual([]);
    expect(rulesOf("https://93.184.216.34:8443/h", true, strict)).toEqual([]);
  });

  test("a live shop needs https; a sandbox shop may use http", () => {
    expect(rulesOf("http://shop.example.com/h", false, strict)).toEqual(["WEBHOOK_URL_HTTPS"]);
    expect(rulesOf("http://shop.example.com/h", true, strict)).toEqual([]);
  });

  test.each(["https://127.0.0.1/h", "https://[::1]/h", "https://10.1.2.3/h", "https://169.254.169.254/latest", "https://localhost:3000/h", "https://db.internal/h", "https://0x7f.1/h"])(
    "%s is refused without WEBHOOK_ALLOW_PRIVATE, for sandbox shops too",
    (url) => {
      expect(rulesOf(url, false, strict)).toEqual(["WEBHOOK_URL_PRIVATE"]);
      expect(rulesOf(url, true, strict)).toEqual(["WEBHOOK_URL_PRIVATE"]);
    },
  );

  test("WEBHOOK_ALLOW_PRIVATE admits loopback and plain http for every shop", () => {
    expect(rulesOf("http://127.0.0.1:4000/h", false, dev)).toEqual([]);
    expect(rulesOf("http://localhost:4000/h", true, dev)).toEqual([]);
  });

  test("other schemes, credentials and junk are refused", () => {
    expect(rulesOf("ftp://shop.example.com/h", true, dev)).toEqual(["WEBHOOK_URL_HTTP_OR_HTTPS"]);
    expect(rulesOf("https://u:p@shop.example.com/h", false, strict)).toEqual(["WEBHOOK_URL_CREDENTIALS"]);
    expect(rulesOf("not a url", false, strict)).toHaveLength(1);
    expect(rulesOf(`https://shop.example.com/${"a".repeat(2100)}`, false, strict)).toHaveLength(1);
  });
});
