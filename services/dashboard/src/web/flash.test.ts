import { expect, test } from "bun:test";
import { Flash } from "./flash.ts";

const KEY = { kind: "apiKey", shopId: "s1", apiKey: "pk_test_x" } as const;

test("a message is shown once, on the page it was meant for", () => {
  let now = 0;
  const flash = new Flash(() => now);
  flash.put("session", "/shops/s1", KEY);
  expect(flash.take("other session", "/shops/s1")).toBeUndefined();
  expect(flash.take("session", "/shops/s1")).toEqual(KEY);
  expect(flash.take("session", "/shops/s1")).toBeUndefined();

  flash.put("session", "/shops/s1", KEY);
  expect(flash.take("session", "/balance")).toBeUndefined();
  expect(flash.take("session", "/shops/s1")).toBeUndefined();
});

test("an uncollected message is gone after five minutes", () => {
  let now = 0;
  const flash = new Flash(() => now);
  flash.put("session", "/shops/s1", KEY);
  now = 5 * 60_000;
  expect(flash.take("session", "/shops/s1")).toBeUndefined();
});
