import { expect, test } from "bun:test";
import type { Payment, ReceiptSummary } from "@payaccept/contracts";
import { csvCell, csvLine, exportCsvLine, EXPORT_CSV_COLUMNS, PAYMENT_CSV_COLUMNS } from "./csv.ts";

test("cells that a spreadsheet would run as formulas are kept as text", () => {
  expect(csvCell("=HYPERLINK(\"http://evil\")")).toBe(`"'=HYPERLINK(""http://evil"")"`);
  expect(csvCell("+7 900")).toBe("'+7 900");
  expect(csvCell("-1")).toBe("'-1");
  expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
  expect(csvCell("\tcmd")).toBe("'\tcmd");
  expect(csvCell("order=5")).toBe("order=5");
});

test("quotes, commas and line breaks are quoted; numbers, booleans and nulls are plain", () => {
  expect(csvCell('Кофе "Арабика", 1 кг')).toBe('"Кофе ""Арабика"", 1 кг"');
  expect(csvCell("two\nlines")).toBe('"two\nlines"');
  expect(csvLine([123456, true, null, "x"])).toBe("123456,true,,x\r\n");
});

test("a payment becomes one line with every field of the spec, metadata as JSON, then its receipts", () => {
  const payment: Payment = {
    id: "0190a0a0-0000-7000-8000-000000000001",
    orderId: "=1+1",
    status: "SUCCESS",
    amountKopecks: 123456,
    commissionKopecks: 864,
    description: null,
    method: "SBP",
    telegramId: "42",
    metadata: { cart: [1, 2] },
    successUrl: null,
    failUrl: null,
    payUrl: "http://localhost:3001/pay/0190a0a0-0000-7000-8000-000000000001",
    isTest: true,
    paidAt: "2026-11-22T11:05:09.000Z",
    createdAt: "2026-11-22T11:00:00.000Z",
    refundedKopecks: 0,
  };
  expect(PAYMENT_CSV_COLUMNS).toHaveLength(Object.keys(payment).length);
  const fields = `0190a0a0-0000-7000-8000-000000000001,'=1+1,SUCCESS,123456,864,,SBP,42,"{""cart"":[1,2]}",,,http://localhost:3001/pay/0190a0a0-0000-7000-8000-000000000001,true,2026-11-22T11:05:09.000Z,2026-11-22T11:00:00.000Z,0`;
  expect(exportCsvLine({ payment, receipts: [] })).toBe(`${fields},,,,,,,\r\n`);
  const receipt = (kind: ReceiptSummary["kind"], status: ReceiptSummary["status"], fiscalDocumentNumber: number | null = null): ReceiptSummary => ({
    id: "0190a0a0-0000-7000-8000-0000000000aa",
    paymentId: payment.id,
    kind,
    status,
    amountKopecks: 123456,
    fiscalDocumentNumber,
  });
  expect(exportCsvLine({ payment, receipts: [receipt("SALE", "REGISTERED", 12), receipt("REFUND", "FAILED")] })).toBe(`${fields},SALE REGISTERED ФД 12; REFUND FAILED,,,,,,\r\n`);
});

test("a charge of a saved method and a hold fill the columns after the receipts", () => {
  const payment: Payment = {
    id: "0190a0a0-0000-7000-8000-000000000002",
    orderId: "sub-2",
    status: "AUTHORIZED",
    amountKopecks: 50000,
    commissionKopecks: 1250,
    description: null,
    method: "CARD",
    telegramId: null,
    metadata: null,
    successUrl: null,
    failUrl: null,
    payUrl: "http://localhost:3001/pay/0190a0a0-0000-7000-8000-000000000002",
    isTest: false,
    paidAt: null,
    createdAt: "2026-11-22T11:00:00.000Z",
    refundedKopecks: 0,
    customerId: "user-7",
    paymentMethod: { id: "0190a0a0-0000-7000-8000-0000000000bb", method: "CARD", card: { brand: "VISA", last4: "4242", expMonth: 1, expYear: 2030 }, sbp: null },
    merchantInitiated: true,
    capture: false,
    heldKopecks: 50000,
    captureDeadline: "2026-11-29T11:00:00.000Z",
  };
  expect(EXPORT_CSV_COLUMNS.slice(-6)).toEqual(["customerId", "paymentMethodId", "merchantInitiated", "heldKopecks", "captureDeadline", "failureCode"]);
  expect(exportCsvLine({ payment, receipts: [] })).toEndWith(`,user-7,0190a0a0-0000-7000-8000-0000000000bb,true,50000,2026-11-29T11:00:00.000Z,\r\n`);
});
