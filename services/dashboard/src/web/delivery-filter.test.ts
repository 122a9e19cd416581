import { expect, test } from "bun:test";
import { logFilterQuery, logFilterRequest, readLogFilter } from "./delivery-filter.ts";

const reading = (params: string) => {
  const q = new URLSearchParams(params);
  return readLogFilter((n) => q.get(n) ?? undefined);
};

test("a payment id filters by id, anything else by order number; unknown statuses are dropped", () => {
  const id = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
  expect(logFilterRequest(reading(`payment=${id.toUpperCase()}&failed=1&status=CANCELED`))).toEqual({ status: "CANCELED", failedOnly: true, paymentId: id, orderId: undefined });
  expect(logFilterRequest(reading("payment=%20A-17%20&status=NOPE"))).toEqual({ status: undefined, failedOnly: undefined, paymentId: undefined, orderId: "A-17" });
  expect(logFilterQuery(reading("failed=1&payment=A-17"), { before: "d-1" })).toBe("?failed=1&payment=A-17&before=d-1");
  expect(logFilterQuery(reading(""))).toBe("");
  // a saved method's end has webhooks of its own; a status that never has one (CREATED) is no filter
  expect(logFilterRequest(reading("status=PAYMENT_METHOD_REVOKED")).status).toBe("PAYMENT_METHOD_REVOKED");
  expect(logFilterRequest(reading("status=CREATED")).status).toBeUndefined();
});
