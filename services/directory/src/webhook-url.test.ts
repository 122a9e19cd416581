import { describe, expect, test } from "bun:test";
import { webhookUrlProblems } from "./webhook-url.ts";

const strict = { allowPrivate: false };
const dev = { allowPrivate: true };

describe("webhookUrlProblems", () => {
  test("a public https URL is fine for live and sandbox shops", () => {
    expect(webhookUrlProblems("https://shop.example.com/webhooks?x=1", false, strict)).toEqual([]);
    expect(webhookUrlProblems("https://93.184.216.34:8443/h", true, strict)).toEqual([]);
  });

  test("a live shop needs https; a sandbox shop may use http", () => {
    expect(webhookUrlProblems("http://shop.example.com/h", false, strict)).toEqual(["must use https"]);
    expect(webhookUrlProblems("http://shop.example.com/h", true, strict)).toEqual([]);
  });

  test.each(["https://127.0.0.1/h", "https://[::1]/h", "https://10.1.2.3/h", "https://169.254.169.254/latest", "https://localhost:3000/h", "https://db.internal/h", "https://0x7f.1/h"])(
    "%s is refused without WEBHOOK_ALLOW_PRIVATE, for sandbox shops too",
    (url) => {
      expect(webhookUrlProblems(url, false, strict)).toEqual(["must point to a public address, not a private network"]);
      expect(webhookUrlProblems(url, true, strict)).toEqual(["must point to a public address, not a private network"]);
    },
  );

  test("WEBHOOK_ALLOW_PRIVATE admits loopback and plain http for every shop", () => {
    expect(webhookUrlProblems("http://127.0.0.1:4000/h", false, dev)).toEqual([]);
    expect(webhookUrlProblems("http://localhost:4000/h", true, dev)).toEqual([]);
  });

  test("other schemes, credentials and junk are refused", () => {
    expect(webhookUrlProblems("ftp://shop.example.com/h", true, dev)).toEqual(["must use https or http"]);
    expect(webhookUrlProblems("https://u:p@shop.example.com/h", false, strict)).toEqual(["must not contain credentials"]);
    expect(webhookUrlProblems("not a url", false, strict)).toHaveLength(1);
    expect(webhookUrlProblems(`https://shop.example.com/${"a".repeat(2100)}`, false, strict)).toHaveLength(1);
  });
});
