import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { jetstream } from "@nats-io/jetstream";
import { paymentEventId, paymentEventSubject, rpcs, type Payment } from "@payaccept/contracts";
import { ENGINES } from "./harness/engines.ts";
import { eventually, READY_WAIT_MS, Stack, STACK_START_MS } from "./harness/stack.ts";
import { ServiceProcess } from "../infra/launcher/supervisor.ts";
import { createPayment, createShop, eventsOf, type TestShop } from "./payments-fixtures.ts";

/**
 * The outbox across a crash. Payments starts with its relay held back (OUTBOX_RELAY_DELAY_MS), so
 * a committed event is still unpublished when the process is SIGKILLed; the next process publishes
 * it, and the stream keeps one copy even when it was already published before the crash. Once on
 * payments.db, once on PostgreSQL (PAYMENTS_DATABASE_URL).
 */
setDefaultTimeout(60_000);

describe.each(ENGINES)("the outbox across a crash on %s", (engine) => {
  let stack: Stack;
  let shop: TestShop;

  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "payments"], env: { OUTBOX_RELAY_DELAY_MS: "1h" }, postgres: engine === "postgres" });
    shop = await createShop(stack, { sandbox: true });
  }, STACK_START_MS);
  afterAll(() => stack?.stop());

  const afterCrashLog = () => join(stack.dataDir, "logs", "payments-after-crash.log");

  /** The next payments process on the same files and ports, with the relay no longer held back. */
  async function startPaymentsAgain(): Promise<void> {
    const svc = new ServiceProcess("payments", { ...stack.env, OUTBOX_RELAY_DELAY_MS: "0" }, { restart: false, log: () => {}, output: afterCrashLog(), readyWaitMs: READY_WAIT_MS });
    stack.services.set("payments", svc);
    svc.start();
    await svc.waitReady();
  }

  /** payments_outbox_unpublished from the service's /metrics. */
  async function outboxBacklog(): Promise<number> {
    const text = await (await fetch(`${stack.url("payments")}/metrics`)).text();
    return Number(/^payments_outbox_unpublished (\d+)$/m.exec(text)![1]);
  }

  /** The event's row as committed, read from the store the engine keeps it in. */
  async function outboxPayload(paymentId: string): Promise<string> {
    if (stack.pg) {
      const sql = new SQL(stack.pg.url);
      try {
        const [row] = await sql`select payload from payments.outbox where payment_id = ${paymentId}`;
        return row.payload;
      } finally {
        await sql.close();
      }
    }
    const db = new Database(join(stack.dataDir, "payments.db"), { readonly: true });
    try {
      return db.query<{ payload: string }, [string]>("SELECT payload FROM outbox WHERE payment_id = ?").get(paymentId)!.payload;
    } finally {
      db.close();
    }
  }

  test("an event committed before a crash reaches the stream exactly once", async () => {
    // A: committed, never published before the crash.
    const a = await createPayment(stack, shop.shopId);
    await stack.call(rpcs.payments.cancel, { shopId: shop.shopId, id: a.id });
    // B: committed and published, but the crash came before the relay marked it published.
    const b: Payment = await createPayment(stack, shop.shopId);
    await stack.call(rpcs.payments.start, { id: b.id, method: "SBP" });
    await stack.call(rpcs.payments.sandboxOutcome, { id: b.id, outcome: "SUCCESS" });

    expect(await eventsOf(stack, a.id)).toEqual([]);
    expect(await eventsOf(stack, b.id)).toEqual([]);
    expect(await outboxBacklog()).toBe(2);
    await stack.kill("payments", "SIGKILL");

    const bPayload = await outboxPayload(b.id);
    const js = jetstream(stack.nc);
    const firstAck = await js.publish(paymentEventSubject("SUCCESS"), bPayload, { msgID: paymentEventId(b.id, "SUCCESS") });
    expect(firstAck.duplicate).toBe(false);

    await startPaymentsAgain();

    const [evA] = await eventually(async () => {
      const evs = await eventsOf(stack, a.id);
      return evs.length > 0 && evs;
    });
    expect(evA!.event).toMatchObject({ paymentId: a.id, status: "CANCELED", previousStatus: "CREATED" });
    expect(evA!.msgId).toBe(paymentEventId(a.id, "CANCELED"));

    // the relay republished B after the restart; the stream dropped it as a duplicate
    await eventually(() => readFileSync(afterCrashLog(), "utf8").includes(`"eventId":"${b.id}:SUCCESS","paymentId":"${b.id}","status":"SUCCESS","duplicate":true`));
    const evsB = await eventsOf(stack, b.id);
    expect(evsB).toHaveLength(1);
    expect(JSON.stringify(evsB[0]!.event)).toBe(JSON.stringify(JSON.parse(bPayload)));

    await eventually(async () => (await outboxBacklog()) === 0);

    // and any later duplicate publish is dropped as well
    const again = await js.publish(paymentEventSubject("CANCELED"), await outboxPayload(a.id), { msgID: paymentEventId(a.id, "CANCELED") });
    expect(again.duplicate).toBe(true);
    expect(await eventsOf(stack, a.id)).toHaveLength(1);
  });

  test("after the restart the relay publishes new events as they commit", async () => {
    const p = await createPayment(stack, shop.shopId);
    await stack.call(rpcs.payments.cancel, { shopId: shop.shopId, id: p.id });
    const [ev] = await eventually(async () => {
      const evs = await eventsOf(stack, p.id);
      return evs.length > 0 && evs;
    });
    expect(ev!.event.status).toBe("CANCELED");
  });
});
