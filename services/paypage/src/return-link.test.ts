import { expect, test } from "bun:test";
import { returnHref } from "./return-link.ts";

test("bare t.me links become https; https and tg:// links pass as they are", () => {
  expect(returnHref("t.me/coffee_bot?start=paid")).toBe("https://t.me/coffee_bot?start=paid");
  expect(returnHref("https://t.me/coffee_bot")).toBe("https://t.me/coffee_bot");
  expect(returnHref("tg://resolve?domain=coffee_bot")).toBe("tg://resolve?domain=coffee_bot");
  expect(returnHref("https://shop.example/thanks?order=1")).toBe("https://shop.example/thanks?order=1");
});

test("no link, or one with another scheme, gives no href", () => {
  expect(returnHref(null)).toBeNull();
  expect(returnHref("javascript:alert(1)")).toBeNull();
  expect(returnHref("http://shop.example/")).toBeNull();
  expect(returnHref("data:text/html,hi")).toBeNull();
});
