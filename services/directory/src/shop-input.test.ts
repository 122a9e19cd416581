import { describe, expect, test } from "bun:test";
import { DomainError } from "@payaccept/contracts";
import { parseSettings } from "./shop-input.ts";

const strict = { allowPrivate: false };
const problems = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof DomainError) return e.messages;
    throw e;
  }
  return [];
};

describe("parseSettings", () => {
  test("normalizes: trimmed name, canonical methods, empty links cleared, absent fields left out", () => {
    expect(parseSettings({ name: "  Shop  ", methods: ["CARD", "SBP", "CARD"], successUrl: "", webhookUrl: null }, false, strict)).toEqual({
      name: "Shop",
      methods: ["SBP", "CARD"],
      successUrl: null,
      failUrl: undefined,
      webhookUrl: null,
    });
  });

  test("every problem is reported at once", () => {
    const messages = problems(() =>
      parseSettings({ name: " ", successUrl: "http://x.example.com", failUrl: "mailto:a@b", webhookUrl: "http://10.0.0.1/h" }, false, strict),
    );
    expect((messages as string[]).map((m) => m.split(":")[0])).toEqual(["name", "successUrl", "failUrl", "webhookUrl", "webhookUrl"]);
  });

  test("return links accept https, t.me and tg://", () => {
    expect(parseSettings({ successUrl: "https://t.me/bot", failUrl: "tg://resolve?domain=bot" }, false, strict)).toMatchObject({
      successUrl: "https://t.me/bot",
      failUrl: "tg://resolve?domain=bot",
    });
  });
});
