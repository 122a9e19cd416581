import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Payment, rpcs } from "@payaccept/contracts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { eventually, Stack } from "./harness/stack.ts";
import { createShop, newOrderId, type TestShop } from "./payments-fixtures.ts";

/**
 * The gateway's read model (docs/gateway.md, "Reads from the read model"): a payment read once is
 * answered from the gateway's memory, and every change of it, whoever makes it (the API, the
 * buyer, a refund), is read right after its commit. The model's own age bound is set far beyond
 * the test, so only payments' change notices can make a read see a change. Once on SQLite, once
 * on PostgreSQL: each engine's store calls the hooks that send the notices.
 */
setDefaultTimeout(120_000);

/** How long a change may take to reach a read: its notice, well within this on a loaded machine. */
const NOTICED_WITHIN_MS = 2000;

describe.each(ENGINES)("the gateway's read model on %s", (engine) => {
  let stack: Stack;
  let shop: TestShop;

  beforeAll(async () => {
    stack = await Stack.start({
      services: ["directory", "payments", "balance", "gateway"],
      postgres: engine === "postgres",
      // The hold after the gateway's start short: no payments process of an earlier release runs here.
      env: { GATEWAY_READ_MODEL_MAX_AGE: "10m", GATEWAY_READ_MODEL_HOLD: "1s" },
    });
    shop = await createShop(stack, { sandbox: true });
  });
  afterAll(() => stack?.stop());

  const get = async (id: string) => {
    const res = await stack.api(shop.apiKey, `/v1/payments/${id}`);
    return { status: res.status, body: await res.text() };
  };
  const lookup = async (orderId: string) => Payment.parse(await (await stack.api(shop.apiKey, `/v1/payments?orderId=${orderId}`)).json());
  const reads = async () => {
    const text = await (await fetch(`${stack.url("gateway")}/metrics`)).text();
    const of = (source: string) => Number(new RegExp(`^gateway_payment_reads_total\\{source="${source}"\\} (\\S+)$`, "m").exec(text)?.[1] ?? 0);
    return { memory: of("memory"), payments: of("payments") };
  };
  const create = async (json: Record<string, unknown> = {}) => {
    const res = await stack.api(shop.apiKey, "/v1/payments", { method: "POST", json: { orderId: newOrderId(), amountKopecks: 100_000, ...json } });
    expect(res.status).toBe(201);
    return Payment.parse(await res.json());
  };
  /** Reads until the gateway answers `status` for the payment, within NOTICED_WITHIN_MS. */
  const readsAs = (id: string, status: string) => eventually(async () => Payment.parse(JSON.parse((await get(id)).body)).status === status, NOTICED_WITHIN_MS);

  test("a payment read again is answered from memory, byte for byte as payments answered it", async () => {
    const p = await create();
    const first = await get(p.id);
    // From payments' first notice on (a heartbeat within a second of the gateway's start).
    await eventually(async () => {
      const before = await reads();
      const again = await get(p.id);
      const after = await reads();
      expect(again).toEqual(first);
      return after.memory - before.memory === 1 && after.payments === before.payments;
    }, 5000);
  });

  test("a change through the API (cancel) is read right after its answer", async () => {
    const p = await create();
    await get(p.id);
    await get(p.id);
    const canceled = await stack.api(shop.apiKey, `/v1/payments/${p.id}/cancel`, { method: "POST" });
    expect(canceled.status).toBe(200);
    const answered = await canceled.text();
    expect(await get(p.id)).toEqual({ status: 200, body: answered });
  });

  test("a change the buyer makes (start and pay, through the payment page's RPCs) is read right after its commit", async () => {
    const p = await create();
    await get(p.id);
    await stack.call(rpcs.payments.start, { id: p.id, method: "SBP" });
    await readsAs(p.id, "PENDING");
    const paid = await stack.call(rpcs.payments.sandboxOutcome, { id: p.id, outcome: "SUCCESS" });
    expect(paid.payment.status).toBe("SUCCESS");
    await readsAs(p.id, "SUCCESS");
    expect(JSON.parse((await get(p.id)).body)).toEqual(JSON.parse(JSON.stringify(paid.payment)));
  });

  test("a refund's end is read right after its answer: the refunded sum, then REFUNDED", async () => {
    const p = await create();
    await stack.call(rpcs.payments.start, { id: p.id, method: "SBP" });
    await stack.call(rpcs.payments.sandboxOutcome, { id: p.id, outcome: "SUCCESS" });
    await readsAs(p.id, "SUCCESS");
    const refund = (amountKopecks: number) => stack.api(shop.apiKey, `/v1/payments/${p.id}/refunds`, { method: "POST", json: { amountKopecks } });
    expect((await refund(40_000)).status).toBe(201);
    expect(JSON.parse((await get(p.id)).body)).toMatchObject({ status: "SUCCESS", refundedKopecks: 40_000 });
    expect((await refund(60_000)).status).toBe(201);
    expect(JSON.parse((await get(p.id)).body)).toMatchObject({ status: "REFUNDED", refundedKopecks: 100_000 });
  });

  test("a lookup by orderId is kept as a get is, and follows the changes alike", async () => {
    const p = await create();
    expect((await lookup(p.orderId)).status).toBe("CREATED");
    const before = await reads();
    expect((await lookup(p.orderId)).id).toBe(p.id);
    expect((await reads()).memory - before.memory).toBe(1);
    expect((await stack.api(shop.apiKey, `/v1/payments/${p.id}/cancel`, { method: "POST" })).status).toBe(200);
    expect((await lookup(p.orderId)).status).toBe("CANCELED");
  });

  test("a payment read by id is found by its orderId from memory, byte for byte; another shop's lookup of that orderId asks payments (404), and a change is read", async () => {
    const p = await create();
    await eventually(async () => {
      const before = await reads();
      const got = await get(p.id);
      const found = await stack.api(shop.apiKey, `/v1/payments?orderId=${p.orderId}`);
      const after = await reads();
      expect({ status: found.status, body: await found.text() }).toEqual(got);
      // The get may have been the first read (payments); the lookup came from memory.
      return after.memory - before.memory >= 1 && after.payments - before.payments <= 1 && after.memory + after.payments - before.memory - before.payments === 2;
    }, 5000);
    const other = await createShop(stack, { sandbox: true });
    const before = await reads();
    const res = await stack.api(other.apiKey, `/v1/payments?orderId=${p.orderId}`);
    expect([res.status, (await res.json()).code, (await reads()).payments - before.payments]).toEqual([404, "PAYMENT_NOT_FOUND", 1]);
    expect((await stack.api(shop.apiKey, `/v1/payments/${p.id}/cancel`, { method: "POST" })).status).toBe(200);
    expect((await lookup(p.orderId)).status).toBe("CANCELED");
  });

  test("another shop's key gets payments' 404 for a payment the model holds", async () => {
    const p = await create();
    await get(p.id);
    const other = await createShop(stack, { sandbox: true });
    const res = await stack.api(other.apiKey, `/v1/payments/${p.id}`);
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe("PAYMENT_NOT_FOUND");
  });

  test("payments restarted (a new source of notices): changes made after it are read", async () => {
    const p = await create();
    await get(p.id);
    await stack.restart("payments");
    const canceled = await stack.api(shop.apiKey, `/v1/payments/${p.id}/cancel`, { method: "POST" });
    expect(canceled.status).toBe(200);
    await readsAs(p.id, "CANCELED");
  });

  // The read model's own rules (notices reaching every gateway, a source gone silent): the store plays no part.
  sqliteRunOnly(engine, () => {
    test("a change through one gateway is read through another: its notice reaches every gateway", async () => {
      const other = await stack.addReplica("gateway");
      const getVia = async (id: string) => Payment.parse(await (await fetch(`${other.url}/api/v1/payments/${id}`, { headers: { "X-Api-Key": shop.apiKey } })).json());
      await eventually(async () => (await (await fetch(`${other.url}/metrics`)).text()).includes("gateway_read_model_on 1"), 10_000, 100);
      const p = await create();
      await getVia(p.id);
      expect(await getVia(p.id)).toEqual(p);
      const canceled = await stack.api(shop.apiKey, `/v1/payments/${p.id}/cancel`, { method: "POST" });
      expect(canceled.status).toBe(200);
      // Not bound to come first (docs/gateway.md, "Reads from the read model"): within the notice's way to the other gateway.
      await eventually(async () => (await getVia(p.id)).status === "CANCELED", NOTICED_WITHIN_MS);
      await other.stop("SIGTERM");
    });

    test("payments stopped: within its silence bound the gateway stops answering from memory and says payments is unavailable", async () => {
      const p = await create();
      await get(p.id);
      void stack.service("payments").kill("SIGSTOP");
      try {
        // SILENT_SOURCE_MS (3 s) and a heartbeat's check: then the read goes to payments, which does not answer.
        await eventually(async () => (await get(p.id)).status === 503, 20_000, 500);
      } finally {
        void stack.service("payments").kill("SIGCONT");
      }
      await eventually(async () => (await get(p.id)).status === 200, 15_000);
    });
  });
});
