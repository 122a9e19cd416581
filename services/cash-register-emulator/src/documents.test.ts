import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { DomainError, type CashRegisterDocumentRequest } from "@payaccept/contracts";
import { openStore } from "@payaccept/platform";
import { FN_NUMBER, registerDocument, settle, toWire } from "./documents.ts";
import { schema } from "./store/schema.ts";

const freshDb = () => openStore(":memory:", schema, join(import.meta.dir, "../drizzle")).db;

const request = (over: Partial<CashRegisterDocumentRequest> = {}): CashRegisterDocumentRequest => ({
  externalId: "r-1",
  operation: "sell",
  test: false,
  client: { email: "buyer@example.com" },
  taxation: "usn_income",
  items: [
    { name: "Кофе", quantity: 1.5, priceKopecks: 333, amountKopecks: 500, vat: "vat22", paymentSubject: "commodity", paymentMode: "full_payment" },
    { name: "Доставка", quantity: 1, priceKopecks: 200, amountKopecks: 200, vat: "none", paymentSubject: "service", paymentMode: "full_payment" },
  ],
  totalKopecks: 700,
  ...over,
});

describe("registerDocument", () => {
  test("is idempotent by external id and refuses another body under the same id", () => {
    const db = freshDb();
    const first = registerDocument(db, request(), 1, 0);
    expect(first.created).toBe(true);
    expect(registerDocument(db, request(), 2, 0)).toEqual({ doc: first.doc, created: false });
    expect(() => registerDocument(db, request({ totalKopecks: 700, test: true }), 3, 0)).toThrow(DomainError);
  });

  test("checks every item's amount and the total, listing every problem", () => {
    const db = freshDb();
    const bad = request({ totalKopecks: 1 });
    bad.items[0] = { ...bad.items[0]!, amountKopecks: 499 };
    try {
      registerDocument(db, bad, 1, 0);
      throw new Error("accepted");
    } catch (e) {
      expect((e as DomainError).messages).toEqual(["items.0.amountKopecks: must be priceKopecks × quantity rounded to a kopeck", "totalKopecks: must be the sum of the items (699)"]);
    }
  });
});

describe("settle", () => {
  test("waits for the delay, then fiscalises with consecutive document numbers", () => {
    const db = freshDb();
    const a = registerDocument(db, request(), 1000, 500).doc;
    const b = registerDocument(db, request({ externalId: "r-2", operation: "sell_refund" }), 1000, 500).doc;
    expect(toWire(settle(db, a, 1499))).toMatchObject({ status: "wait", fiscal: null });
    const doneB = toWire(settle(db, b, 1500));
    const doneA = toWire(settle(db, a, 1600));
    expect(doneB.fiscal).toMatchObject({ fiscalDocumentNumber: 1, fnNumber: FN_NUMBER, registeredAt: new Date(1500).toISOString() });
    expect(doneA.fiscal?.fiscalDocumentNumber).toBe(2);
    expect(doneA.fiscal?.fiscalSign).toMatch(/^\d{1,10}$/);
    // Settled once: reading again changes nothing.
    expect(toWire(settle(db, a, 9999))).toEqual(doneA);
  });

  test("a customer email starting with fail@ ends in fail, without a document number", () => {
    const db = freshDb();
    const doc = registerDocument(db, request({ client: { email: "fail@example.com" } }), 1, 0).doc;
    expect(toWire(settle(db, doc, 1))).toMatchObject({ status: "fail", fiscal: null, error: expect.stringContaining("fail@") });
  });
});
