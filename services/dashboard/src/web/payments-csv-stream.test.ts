import { expect, test } from "bun:test";
import type { Payment } from "@payaccept/contracts";
import { paymentsCsvStream, type Keyset } from "./payments-csv-stream.ts";

const payment = (n: number): Payment => ({
  id: `0190a0a0-0000-7000-8000-${String(n).padStart(12, "0")}`,
  orderId: `order-${n}`,
  status: "SUCCESS",
  amountKopecks: 10_000 + n,
  commissionKopecks: 70,
  description: null,
  method: "SBP",
  telegramId: null,
  metadata: null,
  successUrl: null,
  failUrl: null,
  payUrl: `http://localhost:3001/pay/${n}`,
  isTest: false,
  paidAt: null,
  createdAt: new Date(Date.UTC(2026, 10, 1) + n * 1000).toISOString(),
  refundedKopecks: 0,
});

/** A period of `count` payments served in keyset pages, recording every request. */
function period(count: number, pageSize: number) {
  const all = Array.from({ length: count }, (_, i) => payment(i + 1));
  const requests: (Keyset | undefined)[] = [];
  const read = async (after: Keyset | undefined) => {
    requests.push(after);
    const start = after ? all.findIndex((p) => p.id === after.id) + 1 : 0;
    return all.slice(start, start + pageSize).map((p) => ({ payment: p, receipts: [] }));
  };
  return { read, requests };
}

test("pages follow each other by keyset and only as fast as the reader takes them", async () => {
  const { read, requests } = period(7, 3);
  const stream = await paymentsCsvStream(read, 3, () => {});
  const reader = stream.getReader();
  const header = new TextDecoder("utf-8", { ignoreBOM: true }).decode((await reader.read()).value);
  expect(header.startsWith("\uFEFFid,orderId,status,")).toBe(true);
  expect(requests).toHaveLength(1);
  const lines: string[] = [];
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    lines.push(...new TextDecoder().decode(chunk.value).split("\r\n").filter(Boolean));
    expect(requests.length).toBeLessThanOrEqual(Math.ceil(lines.length / 3) + 1);
  }
  expect(lines.map((l) => l.split(",")[1])).toEqual(["order-1", "order-2", "order-3", "order-4", "order-5", "order-6", "order-7"]);
  expect(requests.map((r) => r?.id.slice(-1))).toEqual([undefined, "3", "6"]);
});

test("a period that fills its last page exactly ends with one empty read", async () => {
  const { read, requests } = period(6, 3);
  const text = await new Response(await paymentsCsvStream(read, 3, () => {})).text();
  expect(text.trim().split("\r\n")).toHaveLength(7);
  expect(requests).toHaveLength(3);
});

test("a failure after the first page aborts the download and is reported", async () => {
  const reported: unknown[] = [];
  let calls = 0;
  const read = async () => {
    if (++calls > 1) throw new Error("payments service unavailable");
    return [payment(1), payment(2)].map((p) => ({ payment: p, receipts: [] }));
  };
  const stream = await paymentsCsvStream(read, 2, (err) => reported.push(err));
  await expect(new Response(stream).text()).rejects.toThrow("payments service unavailable");
  expect(reported).toHaveLength(1);
});

test("a failure on the first page is thrown before any stream exists", async () => {
  await expect(paymentsCsvStream(async () => Promise.reject(new Error("down")), 2, () => {})).rejects.toThrow("down");
});
