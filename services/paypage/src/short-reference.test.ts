import { expect, test } from "bun:test";
import { shortReference } from "./short-reference.ts";

test("the short reference is the random end of the id, not its time-ordered start", () => {
  expect(shortReference("0198f0c4-6c1e-7a3b-9d2e-4f5a6b7c8d9e")).toBe("6B7C-8D9E");
});
