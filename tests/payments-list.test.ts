import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs, type Payment, type PaymentStatus } from "@payaccept/contracts";
import { Stack, STACK_START_MS } from "./harness/stack.ts";
import { createPayment, createShop, failure, listPage, type TestShop } from "./payments-fixtures.ts";
import { ENGINES } from "./harness/engines.ts";

setDefaultTimeout(60_000);

describe.each(ENGINES)("payments list and export on %s", (engine) => {
  let stack: Stack;
  let shop: TestShop;
  /** Every payment of the shop, as created: oldest to newest. */
  let all: Payment[] = [];

  const byTime = (a: Payment, b: Payment) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
  const ids = (ps: Payment[]) => ps.map((p) => p.id);

  async function current(): Promise<Payment[]> {
    return Promise.all(all.map((p) => stack.call(rpcs.payments.get, { shopId: shop.shopId, id: p.id })));
  }

  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "payments"], postgres: engine === "postgres" });
    shop = await createShop(stack, { sandbox: true });
    for (let i = 0; i < 45; i++) {
      all.push(await createPayment(stack, shop.shopId, { amountKopecks: 100 + i }));
      if (i % 9 === 4) await Bun.sleep(3); // a few distinct instants for the time-window cases
    }
    // Some move on: every 5th canceled, every 7th paid, every 11th declined (sandbox outcomes).
    for (const [i, p] of all.entries()) {
      if (i % 5 === 0) await stack.call(rpcs.payments.cancel, { shopId: shop.shopId, id: p.id });
      else if (i % 7 === 0 || i % 11 === 0) {
        await stack.call(rpcs.payments.start, { id: p.id, method: "SBP" });
        await stack.call(rpcs.payments.sandboxOutcome, { id: p.id, outcome: i % 7 === 0 ? "SUCCESS" : "FAILED" });
      }
    }
    all = await current();
  }, STACK_START_MS);
  afterAll(() => stack?.stop());

  describe("list", () => {
    test("creation order is time order and ids break ties", () => {
      expect(ids([...all].sort(byTime))).toEqual(ids(all));
    });

    test("pages run oldest to newest, are stable, and add up to the whole shop", async () => {
      const seen: Payment[] = [];
      for (let page = 1; page <= 7; page++) {
        const res = await listPage(stack, shop.shopId, { page: String(page), limit: "7" });
        expect(res).toMatchObject({ total: 45, page, pageSize: 7 });
        expect(res.items.length).toBe(page < 7 ? 7 : 3);
        seen.push(...res.items);
      }
      expect(seen).toEqual(all);
      // A new payment lands after the last page and moves nothing before it.
      const extra = await createPayment(stack, (await createShop(stack)).shopId);
      const again = await listPage(stack, shop.shopId, { page: "2", limit: "7" });
      expect(again.items).toEqual(all.slice(7, 14));
      expect(again.items).not.toContainEqual(extra);
    });

    test("defaults are page 1 of 20; a page past the end is empty with the total", async () => {
      const first = await listPage(stack, shop.shopId, {});
      expect(first).toMatchObject({ total: 45, page: 1, pageSize: 20 });
      expect(first.items).toEqual(all.slice(0, 20));
      expect(await listPage(stack, shop.shopId, { page: "10000", limit: "100" })).toEqual({ items: [], total: 45, page: 10000, pageSize: 100 });
    });

    test("from and to are inclusive bounds on createdAt", async () => {
      const from = all[10]!.createdAt;
      const to = all[30]!.createdAt;
      const expected = all.filter((p) => p.createdAt >= from && p.createdAt <= to);
      expect(expected.length).toBeGreaterThanOrEqual(21);
      const res = await listPage(stack, shop.shopId, { from, to, limit: "100" });
      expect(res.total).toBe(expected.length);
      expect(res.items).toEqual(expected);
      const page2 = await listPage(stack, shop.shopId, { from, to, limit: "5", page: "2" });
      expect(page2.items).toEqual(expected.slice(5, 10));
      // one instant on both sides
      const exact = await listPage(stack, shop.shopId, { from, to: from, limit: "100" });
      expect(exact.items).toEqual(all.filter((p) => p.createdAt === from));
    });

    test("a window with no payments is empty", async () => {
      const res = await listPage(stack, shop.shopId, { from: "2000-01-01T00:00:00Z", to: "2000-01-02T00:00:00Z" });
      expect(res).toEqual({ items: [], total: 0, page: 1, pageSize: 20 });
      expect((await listPage(stack, shop.shopId, { from: "2999-01-01T00:00:00Z" })).total).toBe(0);
    });

    test("from later than to is a bad request", async () => {
      const f = await failure(listPage(stack, shop.shopId, { from: "2026-02-01T00:00:00Z", to: "2026-01-01T00:00:00Z" }));
      expect(f.code).toBe("BAD_REQUEST");
    });

    const statusCases: Array<[string, PaymentStatus[]]> = [
      ["CANCELED", ["CANCELED"]],
      ["SUCCESS,FAILED", ["SUCCESS", "FAILED"]],
      ["CREATED", ["CREATED"]],
      ["REFUNDED", ["REFUNDED"]],
    ];
    test.each(statusCases)("status=%s filters and counts", async (param, statuses) => {
      const expected = all.filter((p) => statuses.includes(p.status));
      const res = await listPage(stack, shop.shopId, { status: param, limit: "4", page: "2" });
      expect(res.total).toBe(expected.length);
      expect(res.items).toEqual(expected.slice(4, 8));
      const whole = await listPage(stack, shop.shopId, { status: param, limit: "100" });
      expect(whole.items).toEqual(expected);
    });

    test("status and a time window together", async () => {
      const from = all[5]!.createdAt;
      const to = all[40]!.createdAt;
      const expected = all.filter((p) => (p.status === "CANCELED" || p.status === "SUCCESS") && p.createdAt >= from && p.createdAt <= to);
      const res = await listPage(stack, shop.shopId, { status: "CANCELED,SUCCESS", from, to, limit: "3", page: "2" });
      expect(res.total).toBe(expected.length);
      expect(res.items).toEqual(expected.slice(3, 6));
    });

    test("another shop sees none of them", async () => {
      const stranger = await createShop(stack);
      expect(await listPage(stack, stranger.shopId, {})).toEqual({ items: [], total: 0, page: 1, pageSize: 20 });
    });
  });

  describe("export", () => {
    async function exportAll(filter: { from?: string; to?: string; status?: PaymentStatus[] }, limit: number): Promise<Payment[]> {
      const out: Payment[] = [];
      let after: { createdAt: string; id: string } | undefined;
      for (let guard = 0; guard < 100; guard++) {
        const { items } = await stack.call(rpcs.payments.exportPage, { shopId: shop.shopId, ...filter, after, limit });
        out.push(...items);
        if (items.length < limit) return out;
        const last = items.at(-1)!;
        after = { createdAt: last.createdAt, id: last.id };
      }
      throw new Error("export did not end");
    }

    test("keyset pages cover the shop once, in list order", async () => {
      expect(await exportAll({}, 10)).toEqual(all);
      expect(await exportAll({}, 1000)).toEqual(all);
    });

    test("with a window and statuses", async () => {
      const from = all[3]!.createdAt;
      const to = all[33]!.createdAt;
      const expected = all.filter((p) => p.status === "CREATED" && p.createdAt >= from && p.createdAt <= to);
      expect(await exportAll({ from, to, status: ["CREATED"] }, 4)).toEqual(expected);
    });

    test("a malformed bound is a bad request naming the field and the format it needs", async () => {
      await expect(stack.call(rpcs.payments.exportPage, { shopId: shop.shopId, from: "yesterday", limit: 10 })).rejects.toMatchObject({
        code: "BAD_REQUEST",
        reason: "VALIDATION_FAILED",
        params: { issues: [{ path: "from", issue: "invalid_format", params: { format: "datetime" } }] },
      });
    });
  });
});
