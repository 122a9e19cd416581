import { expect, test } from "bun:test";
import { HTTPException } from "hono/http-exception";
import { DomainError } from "@payaccept/contracts";
import { pageStatusOf } from "./page-status.ts";

test("a page's failure keeps its error's status; a provider's refusal reads as unavailable; anything else is 500", () => {
  expect(pageStatusOf(new DomainError("PAYMENT_NOT_FOUND"))).toBe(404);
  expect(pageStatusOf(new DomainError("PAYMENT_NOT_PAYABLE", { status: "SUCCESS" }))).toBe(409);
  expect(pageStatusOf(new DomainError("PROVIDER_REFUSED"))).toBe(503);
  expect(pageStatusOf(new HTTPException(413))).toBe(413);
  expect(pageStatusOf(new TypeError("x is undefined"))).toBe(500);
});
