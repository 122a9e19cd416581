import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { headers } from "@nats-io/transport-node";
import { Payment, Refund, rpcs, type Rpc, type RpcReply, type RpcRequest } from "@payaccept/contracts";
import { CALL_ID_HEADER, DEADLINE_HEADER, decodeJson, encodeJson } from "@payaccept/platform";
import type { z } from "zod";
import { ENGINES } from "./harness/engines.ts";
import { Stack, STACK_START_MS } from "./harness/stack.ts";
import { createShop, newOrderId, paidSandbox, type TestShop } from "./payments-fixtures.ts";

setDefaultTimeout(60_000);

/**
 * A caller that hears nothing sends a copy of an idempotent call (hedging, platform's hedge.ts),
 * and both copies may reach live replicas. Here the copies are sent on purpose, at the same time,
 * as raw NATS requests with one call id: whatever order payments takes them in, one call has one
 * effect, and two calls keep their two. Copies that arrive together are given the first one's
 * reply by serve() (packages/platform/src/copies.ts); a copy that arrives after the first one was
 * answered (its answer lost, or the copy on another replica) finds the first one's work in the store.
 */
describe.each(ENGINES)("copies of one call to payments on %s", (engine) => {
  let stack: Stack;
  let shop: TestShop;

  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "payments"], postgres: engine === "postgres" });
    shop = await createShop(stack, { sandbox: true });
  }, STACK_START_MS);
  afterAll(() => stack?.stop());

  /** The replies to `copies` requests that share one call id, sent together. */
  async function sendCopies<R extends Rpc<z.ZodType, z.ZodType>>(rpc: R, req: RpcRequest<R>, callId: string, copies = 3) {
    const h = headers();
    h.set(CALL_ID_HEADER, callId);
    h.set(DEADLINE_HEADER, String(Date.now() + 5_000));
    const replies = await Promise.all(Array.from({ length: copies }, () => stack.nc.request(rpc.subject, encodeJson(req), { timeout: 5_000, headers: h })));
    return replies.map((m) => decodeJson<RpcReply<unknown>>(m.data));
  }

  test("copies of a create make one payment and all answer it; another call with that orderId is ORDER_ID_TAKEN", async () => {
    const orderId = newOrderId();
    const req = { shopId: shop.shopId, request: { orderId, amountKopecks: 4_200 } };
    const callId = Bun.randomUUIDv7();
    const replies = [...(await sendCopies(rpcs.payments.create, req, callId)), ...(await sendCopies(rpcs.payments.create, req, callId, 1))];
    for (const r of replies) expect(r.ok).toBe(true);
    const ids = new Set(replies.map((r) => Payment.parse((r as { data: unknown }).data).id));
    expect(ids.size).toBe(1);

    const [again] = await sendCopies(rpcs.payments.create, req, Bun.randomUUIDv7(), 1);
    expect(again).toMatchObject({ ok: false, error: { reason: "ORDER_ID_TAKEN" } });
    expect((await stack.call(rpcs.payments.lookup, { shopId: shop.shopId, orderId })).id).toBe([...ids][0]!);
  });

  test("copies of a refund without an idempotency key make one refund; a second call makes a second", async () => {
    const paid = await paidSandbox(stack, shop.shopId, { amountKopecks: 10_000 });
    const req = { shopId: shop.shopId, id: paid.id, amountKopecks: 3_000 };
    const callId = Bun.randomUUIDv7();
    const first = [...(await sendCopies(rpcs.payments.refund, req, callId)), ...(await sendCopies(rpcs.payments.refund, req, callId, 1))];
    for (const r of first) expect(r.ok).toBe(true);
    expect(new Set(first.map((r) => Refund.parse((r as { data: unknown }).data).id)).size).toBe(1);

    const [second] = await sendCopies(rpcs.payments.refund, req, Bun.randomUUIDv7(), 1);
    expect(second!.ok).toBe(true);
    const { items } = await stack.call(rpcs.payments.listRefunds, { shopId: shop.shopId, id: paid.id });
    expect(items.map((r) => r.amountKopecks)).toEqual([3_000, 3_000]);
    expect((await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: paid.id })).refundedKopecks).toBe(6_000);
  });
});
