import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs, type Payment } from "@payaccept/contracts";
import { verifyWebhook } from "@payaccept/sdk";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { skewedClock } from "./harness/skewed-clock.ts";
import { eventually, Stack, type ShopCreated } from "./harness/stack.ts";
import type { ServiceProcess } from "../infra/launcher/supervisor.ts";

setDefaultTimeout(180_000);

/**
 * Issue 20, item 4: one process on a host whose wall clock is off (libfaketime; its timers keep
 * real time), every other service on the true clock. Before, a gateway 5 s behind answered 503 to
 * every request (its deadlines had passed on the services' clocks) and an admin CLI 10 s behind
 * failed every command. Now every request is served, each side measures the other's offset
 * (clock_offset_seconds{peer}) and logs a warning naming it.
 */
const OFFSETS_S = [-60, -5, 5, 60];

const metricsOf = async (url: string) => (await fetch(`${url}/metrics`)).text();
/** The clock_offset_seconds value a process's /metrics gives the peer whose label matches. */
function offsetOf(metrics: string, peer: RegExp): number | undefined {
  for (const line of metrics.split("\n")) {
    const m = /^clock_offset_seconds\{peer="([^"]+)"\} (\S+)$/.exec(line);
    if (m && peer.test(m[1]!)) return Number(m[2]);
  }
  return undefined;
}
const warnedAbout = (log: string, peer: RegExp) =>
  log.split("\n").some((line) => line.includes("CLOCK_OFFSET_WARN") && line.includes('"level":40') && peer.test(/"peer":"([^"]+)"/.exec(line)?.[1] ?? ""));
/** The label a process gives itself: service@host/pid. */
const labelOf = (name: string, pid: number | undefined) => new RegExp(`^${name}@[^/]+/${pid}$`);

describe.each(ENGINES)("hosts whose clocks differ (%s)", (engine) => {
  let stack: Stack;
  let shop: ShopCreated;
  let receiver: Receiver;
  let orders = 0;
  const orderId = () => `skew-${engine}-${++orders}`;

  beforeAll(async () => {
    receiver = startReceiver();
    stack = await Stack.start({ services: ["directory", "payments", "gateway", "webhook-dispatcher", "balance"], postgres: engine === "postgres" });
    shop = await stack.createShop({ name: "Skew shop", sandbox: true, webhookUrl: receiver.url });
    await eventually(async () => (await stack.api(shop.apiKey, "/v1/payments?orderId=none")).status === 404, 30_000);
  });
  afterAll(async () => {
    receiver?.stop();
    await stack?.stop();
  });

  /** The merchant's calls through one gateway: creates (one with an Idempotency-Key, sent twice), reads, a lookup, a cancel, the balance. */
  async function merchantCalls(gateway: string): Promise<Payment[]> {
    const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
      fetch(`${gateway}${path}`, { ...init, headers: { "X-Api-Key": shop.apiKey, "Content-Type": "application/json", ...init.headers }, body: init.json === undefined ? init.body : JSON.stringify(init.json) });
    const created: Payment[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await api("/v1/payments", { method: "POST", json: { orderId: orderId(), amountKopecks: 10_000 + i } });
      expect(res.status).toBe(201);
      created.push((await res.json()) as Payment);
    }
    const keyed = { method: "POST", json: { orderId: orderId(), amountKopecks: 5_000 }, headers: { "Idempotency-Key": `skew-${orderId()}` } };
    const first = await api("/v1/payments", keyed);
    expect(first.status).toBe(201);
    const again = await api("/v1/payments", keyed);
    expect([again.status, again.headers.get("Idempotent-Replayed")]).toEqual([201, "true"]);
    for (const p of created) expect((await api(`/v1/payments/${p.id}`)).status).toBe(200);
    expect((await api(`/v1/payments?orderId=${created[0]!.orderId}`)).status).toBe(200);
    expect((await api(`/v1/payments/${created[1]!.id}/cancel`, { method: "POST" })).status).toBe(200);
    expect((await api("/v1/balance")).status).toBe(200);
    return created;
  }

  // The bus and the gateway keep no rows: the engines differ in nothing these cases reach.
  sqliteRunOnly(engine, () => {
    test.each(OFFSETS_S)("a gateway %d s off: every request is served, and both it and payments see the offset and warn", async (offsetS) => {
      const gateway = await stack.addReplica("gateway", { env: skewedClock(offsetS) });
      try {
        await merchantCalls(`${gateway.url}/api`);
        const payments = stack.service("payments");
        const seenByPayments = offsetOf(await metricsOf(payments.url), labelOf("gateway", gateway.proc?.pid));
        expect(Math.abs(seenByPayments! - offsetS)).toBeLessThan(1);
        const seenByGateway = offsetOf(await metricsOf(gateway.url), labelOf("payments", payments.proc?.pid));
        expect(Math.abs(seenByGateway! + offsetS)).toBeLessThan(1);
        expect(warnedAbout(stack.log("payments"), labelOf("gateway", gateway.proc?.pid))).toBe(true);
        expect(warnedAbout(stack.replicaLog(gateway), labelOf("payments", payments.proc?.pid))).toBe(true);
        expect(stack.log("payments")).not.toContain("request arrived after its caller's deadline");
      } finally {
        await gateway.stop();
      }
    });

    test.each([-60, -10, 60])("the admin CLI %d s off: its commands are served, and the directory warns about it", async (offsetS) => {
      const created = await stack.admin(["shop:create", "--name", `Skewed CLI ${offsetS}`, "--sandbox", "--json"], undefined, skewedClock(offsetS));
      expect(created.code).toBe(0);
      const { shopId } = JSON.parse(created.stdout) as { shopId: string };
      const rotated = await stack.admin(["key:rotate", "--shop", shopId, "--json"], undefined, skewedClock(offsetS));
      expect(rotated.code).toBe(0);
      expect(JSON.parse(rotated.stdout)).toHaveProperty("apiKey");
      expect(warnedAbout(stack.log("directory"), /^admin-cli@/)).toBe(true);
    });
  });

  test("a payments replica 60 s behind, then one 60 s ahead, serving alone: creates, reads, cancels and refunds through the gateway, webhooks signed on the true clock", async () => {
    await stack.kill("payments", "SIGTERM");
    try {
      for (const offsetS of [-60, 60]) {
        const replica: ServiceProcess = await stack.addReplica("payments", { env: skewedClock(offsetS) });
        try {
          const created = await merchantCalls(stack.gateway);
          // On PostgreSQL payments reads the time from the server (store-clock.ts), so the skewed
          // replica's payments carry the true time. (SQLite replicas share one host, hence its
          // clock; here the replica's, held back by the shop's later payments: a shop's createdAt
          // never goes back.)
          if (engine === "postgres") for (const p of created) expect(Math.abs(Date.parse(p.createdAt) - Date.now())).toBeLessThan(20_000);
          // Paid on the payment page's RPCs and refunded: payments calls the balance (on the true clock) for the hold.
          const paid = created[2]!;
          await stack.call(rpcs.payments.start, { id: paid.id, method: "SBP" });
          await stack.call(rpcs.payments.sandboxOutcome, { id: paid.id, outcome: "SUCCESS" });
          const refund = await stack.api(shop.apiKey, `/v1/payments/${paid.id}/refunds`, { method: "POST", json: { amountKopecks: 1_000 } });
          expect(refund.status).toBe(201);

          const webhook = await eventually(() => receiver.requests.find((r) => JSON.parse(r.body).id === created[1]!.id), 30_000);
          expect(verifyWebhook(webhook.body, webhook.headers, shop.signingSecret).ok).toBe(true);
          const seenByGateway = offsetOf(await metricsOf(stack.url("gateway")), labelOf("payments", replica.proc?.pid));
          expect(Math.abs(seenByGateway! - offsetS)).toBeLessThan(1);
          expect(warnedAbout(stack.replicaLog(replica), /^gateway@/)).toBe(true);
          expect(stack.replicaLog(replica)).not.toContain("request arrived after its caller's deadline");
        } finally {
          await replica.stop();
        }
      }
    } finally {
      stack.service("payments").start();
      await stack.service("payments").waitReady();
    }
  });
});
