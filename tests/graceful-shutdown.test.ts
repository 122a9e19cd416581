import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { rpcs } from "@payaccept/contracts";
import { DISPATCH_STREAM, DURABLE } from "../services/webhook-dispatcher/src/bus/streams.ts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { deliveryLog } from "../services/webhook-dispatcher/test-support/fixtures.ts";
import { ROOT, SERVICE_NAMES, type ServiceName } from "../infra/launcher/services.ts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { eventually, Stack } from "./harness/stack.ts";

/**
 * Every service's start and stop (docs/operations.md, "Readiness" and "Graceful shutdown"), on the
 * whole stack: /readyz follows the NATS connection, not only its end; SIGTERM lets work in hand
 * finish (a webhook attempt in flight is completed, logged and acknowledged before the process
 * exits, so it is neither lost nor made again); and every service closes its pieces in the order
 * the operations table documents: intake first, NATS drained, the store last.
 */
// Real processes: the same per-test limit as infra/scripts/test.sh, also when run alone.
setDefaultTimeout(120_000);

/** The services that use no NATS: their readiness must not follow it. */
const WITHOUT_NATS: ServiceName[] = ["acquirer-emulator", "cash-register-emulator"];

/** The closers of each service in the order docs/operations.md's table gives. */
function documentedOrder(): Record<string, string[]> {
  const doc = readFileSync(join(ROOT, "docs/operations.md"), "utf8");
  const table = doc.slice(doc.indexOf("| service | order at shutdown |"));
  const lines = table.split("\n").slice(2);
  const rows = lines.slice(0, lines.findIndex((line) => !line.startsWith("| ")));
  return Object.fromEntries(rows.map((row) => {
    const [service, order] = row.split("|").slice(1, 3).map((cell) => cell.trim());
    return [service!, [...order!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)];
  }));
}

/** The closers a service's last shutdown logged, in the order they ran. */
function loggedOrder(log: string): string[] {
  const lines = log.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { msg: string; closer?: string });
  const lastShutdown = lines.findLastIndex((l) => l.msg === "shutting down");
  return lines.slice(lastShutdown).filter((l) => l.msg === "closed").map((l) => l.closer!);
}

describe.each(ENGINES)("start and graceful shutdown of every service, stores on %s", (engine) => {
  let stack: Stack;
  let receiver: Receiver;
  let answer: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));

  beforeAll(async () => {
    stack = await Stack.start({ postgres: engine === "postgres" });
    // The merchant's endpoint holds its reply until the test lets it answer.
    receiver = startReceiver(async () => {
      await answered;
      return new Response("ok");
    });
  });
  afterAll(async () => {
    answer?.();
    receiver?.stop();
    await stack?.stop();
  });

  const readyz = async (name: ServiceName) => {
    const res = await fetch(`${stack.url(name)}/readyz`);
    return { status: res.status, body: (await res.json()) as { checks: Record<string, boolean>; down?: Record<string, string> } };
  };

  // NATS being down reaches no store: the engines cannot differ here.
  sqliteRunOnly(engine, () => {
    test("/readyz is 503 naming nats while the NATS connection is reconnecting, and 200 once it is back", async () => {
      const withNats = SERVICE_NAMES.filter((n) => !WITHOUT_NATS.includes(n));
      for (const name of SERVICE_NAMES) expect({ name, ...(await readyz(name)) }).toMatchObject({ name, status: 200 });

      await stack.nats.stop();
      try {
        for (const name of withNats) {
          const seen = await eventually(async () => {
            const r = await readyz(name);
            return r.status === 503 && r.body.checks.nats === false && r;
          }, 30_000);
          expect({ name, down: seen.body.down?.nats }).toEqual({ name, down: "NATS connection lost; reconnecting" });
        }
        for (const name of WITHOUT_NATS) expect({ name, ...(await readyz(name)) }).toMatchObject({ name, status: 200, body: { checks: { database: true } } });
      } finally {
        await stack.startNats();
      }

      for (const name of SERVICE_NAMES) {
        await eventually(async () => (await readyz(name)).status === 200, 60_000);
        expect((await readyz(name)).body.checks).toMatchObject(WITHOUT_NATS.includes(name) ? { database: true } : { nats: true });
      }
    });
  });

  test("a webhook attempt in flight at SIGTERM finishes, is logged once and is not made again", async () => {
    const shop = await stack.createShop({ name: "Graceful", webhookUrl: receiver.url });
    const payment = await eventually(() => stack.call(rpcs.payments.create, { shopId: shop.shopId, request: { orderId: "graceful-1", amountKopecks: 5000 } }));
    await stack.call(rpcs.payments.cancel, { shopId: shop.shopId, id: payment.id });
    await eventually(() => receiver.requests.length === 1);

    const dispatcher = stack.service("webhook-dispatcher");
    const stopped = dispatcher.stop("SIGTERM", 20_000);
    await eventually(() => stack.log("webhook-dispatcher").includes('"msg":"shutting down"'));
    expect(dispatcher.proc!.exitCode).toBeNull(); // still waiting for the merchant
    answer();
    await stopped;
    expect(dispatcher.proc!.exitCode).toBe(0);

    // The attempt's message was acknowledged: the work queue holds nothing that could send it again.
    const consumer = await (await jetstreamManager(stack.nc)).consumers.info(DISPATCH_STREAM, DURABLE);
    expect({ pending: consumer.num_pending, ackPending: consumer.num_ack_pending }).toEqual({ pending: 0, ackPending: 0 });

    dispatcher.start();
    await dispatcher.waitReady();
    const [delivery] = await deliveryLog(stack, shop.shopId, payment.id);
    expect(delivery).toMatchObject({ status: "CANCELED", result: "delivered", attemptCount: 1 });
    expect(delivery!.attempts.map((a) => a.httpStatus)).toEqual([200]);
    expect(receiver.requests).toHaveLength(1);
  });

  test("SIGTERM: every service exits 0 after closing its pieces in the documented order", async () => {
    const documented = documentedOrder();
    expect(Object.keys(documented).sort()).toEqual([...SERVICE_NAMES].sort());

    await Promise.all(SERVICE_NAMES.map((name) => stack.service(name).stop("SIGTERM", 20_000)));
    for (const name of SERVICE_NAMES) {
      expect({ name, exitCode: stack.service(name).proc!.exitCode, closers: loggedOrder(stack.log(name)) }).toEqual({
        name,
        exitCode: 0,
        closers: documented[name]!,
      });
    }
  });
});
