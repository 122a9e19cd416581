import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Payment } from "@payaccept/contracts";
import { SERVICE_NAMES, type ServiceName } from "../infra/launcher/services.ts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { eventually, Stack, type ShopCreated } from "./harness/stack.ts";
import { prometheusBinary } from "./harness/observability.ts";
import { createShop, paidSandbox, type TestShop } from "./payments-fixtures.ts";

/**
 * Every service's /metrics after a little real traffic: a few API calls through the gateway, a
 * payment canceled with its webhook delivered, a payment page opened, a sandbox payment paid and
 * partly refunded in a shop with no webhook URL. The named series are there and count what was done.
 */
// Every service as a real process: the same per-test limit as infra/scripts/test.sh.
setDefaultTimeout(120_000);

const CREATES = 3;
const SANDBOX_PAID = 7000;
const SANDBOX_REFUNDED = 3000;

let stack: Stack;
let receiver: Receiver;
let shop: ShopCreated;
let payments: Payment[] = [];
/** A sandbox shop without a webhook URL: its webhook's attempts send nothing. */
let noUrlShop: TestShop;

beforeAll(async () => {
  // One retry, soon: the no-URL delivery's series ends within the test, leaving no message in hand.
  stack = await Stack.start({ env: { WEBHOOK_RETRY_DELAYS: "200ms" } });
  receiver = startReceiver();
  shop = await stack.createShop({ name: "Metrics", webhookUrl: receiver.url });
  for (let i = 0; i < CREATES; i++) {
    const res = await eventually(async () => {
      const r = await stack.api(shop.apiKey, "/v1/payments", { method: "POST", json: { orderId: `metrics-${i}`, amountKopecks: 2500 } });
      return r.status === 201 ? r : null;
    });
    payments.push(Payment.parse(await res.json()));
  }
  for (const p of payments) expect((await stack.api(shop.apiKey, `/v1/payments/${p.id}`)).status).toBe(200);
  expect((await stack.api(shop.apiKey, "/v1/payments?orderId=no-such-order")).status).toBe(404);
  expect((await stack.api(shop.apiKey, `/v1/payments/${payments[0]!.id}/cancel`, { method: "POST" })).status).toBe(200);
  expect((await stack.api(shop.apiKey, "/v1/balance")).status).toBe(200);
  expect((await fetch(`${stack.url("paypage")}/pay/${payments[1]!.id}`)).status).toBe(200);
  await eventually(() => receiver.requests.length === 1);
  noUrlShop = await createShop(stack, { sandbox: true });
  const paid = await paidSandbox(stack, noUrlShop.shopId, { amountKopecks: SANDBOX_PAID });
  const refund = await stack.api(noUrlShop.apiKey, `/v1/payments/${paid.id}/refunds`, { method: "POST", json: { amountKopecks: SANDBOX_REFUNDED } });
  expect(refund.status).toBe(201);
});

afterAll(async () => {
  receiver?.stop();
  await stack?.stop();
});

type Sample = { name: string; labels: Record<string, string>; value: number };

/** The Prometheus text format's samples (comments skipped). */
function parse(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

async function scrape(name: ServiceName): Promise<Sample[]> {
  const res = await fetch(`${stack.url(name)}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return parse(await res.text());
}

/** The sum of the series of `name` carrying every given label; undefined when there is none. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return matching.length === 0 ? undefined : matching.reduce((sum, s) => sum + s.value, 0);
}

describe("every service", () => {
  test.each(SERVICE_NAMES)("%s: request latency by route and status, and process metrics", async (name) => {
    const samples = await scrape(name);
    // The harness asked /readyz until the service was ready.
    expect(value(samples, "http_request_duration_seconds_count", { method: "GET", route: "/readyz", status: "200" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, "http_request_duration_seconds_bucket", { route: "/readyz", le: "+Inf" })).toBeGreaterThanOrEqual(1);
    expect(value(samples, "process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(value(samples, "process_resident_memory_bytes")).toBeGreaterThan(0);
  });

  // prom-client's default gauges of Node's active handles end in _total; they are its names, not ours.
  const PROM_CLIENT_NAMES = /^nodejs_active_(handles|requests|resources)_total /;

  test.each(SERVICE_NAMES)("%s: promtool's lint finds nothing in our metrics' names, types and help", async (name) => {
    const text = await (await fetch(`${stack.url(name)}/metrics`)).text();
    const lint = Bun.spawnSync([prometheusBinary("promtool"), "check", "metrics"], { stdin: new TextEncoder().encode(text), stdout: "pipe", stderr: "pipe" });
    const findings = lint.stdout.toString().concat(lint.stderr.toString()).split("\n").filter((l) => l.trim() !== "" && !PROM_CLIENT_NAMES.test(l));
    expect(findings).toEqual([]);
  });

  test.each(SERVICE_NAMES)("%s: ready, and each check of its /readyz passing", async (name) => {
    const samples = await scrape(name);
    const readyz = (await (await fetch(`${stack.url(name)}/readyz`)).json()) as { checks: Record<string, boolean> };
    expect(value(samples, "service_ready")).toBe(1);
    const checks = Object.fromEntries(samples.filter((s) => s.name === "service_readiness_check").map((s) => [s.labels.check!, s.value]));
    expect(checks).toEqual(Object.fromEntries(Object.keys(readyz.checks).map((c) => [c, 1])));
  });
});

test("gateway: API requests by route and status; NATS request latency by subject and outcome", async () => {
  const g = await scrape("gateway");
  const http = (method: string, route: string, status: string) => value(g, "http_request_duration_seconds_count", { method, route, status });
  expect(http("POST", "/api/v1/payments", "201")).toBe(CREATES);
  expect(http("GET", "/api/v1/payments/:id", "200")).toBe(CREATES);
  expect(http("GET", "/api/v1/payments", "404")).toBe(1);
  expect(http("POST", "/api/v1/payments/:id/cancel", "200")).toBe(1);
  expect(http("GET", "/api/v1/balance", "200")).toBe(1);
  const nats = (subject: string, outcome: string) => value(g, "nats_request_duration_seconds_count", { subject, outcome });
  expect(nats("payments.v1.create", "ok")).toBe(CREATES);
  expect(nats("payments.v1.lookup", "NOT_FOUND")).toBe(1);
  expect(nats("balance.v1.get", "ok")).toBe(1);
  expect(value(g, "nats_request_duration_seconds_sum", { subject: "payments.v1.create" })).toBeGreaterThan(0);
});

test("payments: RPCs answered, transitions, an empty outbox once the event is published", async () => {
  const p = await eventually(async () => {
    const samples = await scrape("payments");
    return value(samples, "payments_outbox_unpublished") === 0 ? samples : null;
  });
  // The gateway's creates and the sandbox payment's, asked by the test as the dashboard would.
  expect(value(p, "nats_rpc_handled_total", { subject: "payments.v1.create", outcome: "ok" })).toBe(CREATES + 1);
  expect(value(p, "nats_rpc_duration_seconds_count", { subject: "payments.v1.create", outcome: "ok" })).toBe(CREATES + 1);
  expect(value(p, "nats_rpc_duration_seconds_count", { subject: "payments.v1.lookup", outcome: "NOT_FOUND" })).toBe(1);
  expect(value(p, "payments_transitions_total", { from: "CREATED", to: "CANCELED", trigger: "cancel" })).toBe(1);
  expect(value(p, "payments_outbox_oldest_unpublished_age_seconds")).toBe(0);
});

test("payments: the money of the status changes and of the ended refunds, live apart from sandbox", async () => {
  const p = await scrape("payments");
  expect(value(p, "payments_transitions_kopecks_total", { to: "CANCELED", test: "false" })).toBe(2500);
  expect(value(p, "payments_transitions_kopecks_total", { to: "SUCCESS", test: "true" })).toBe(SANDBOX_PAID);
  expect(value(p, "payments_transitions_kopecks_total", { to: "SUCCESS", test: "false" })).toBeUndefined();
  expect(value(p, "payments_refunds_ended_total", { status: "SUCCEEDED" })).toBe(1);
  expect(value(p, "payments_refunds_ended_kopecks_total", { status: "SUCCEEDED", test: "true" })).toBe(SANDBOX_REFUNDED);
  expect(value(p, "payments_refunds_pending")).toBe(0);
});

test("webhook-dispatcher: the attempts by result; both consumers with nothing left pending", async () => {
  const w = await eventually(async () => {
    const samples = await scrape("webhook-dispatcher");
    const pending = ["jetstream_consumer_pending_messages", "jetstream_consumer_ack_pending_messages"].map((n) => value(samples, n));
    return pending.every((v) => v === 0) && value(samples, "webhook_series_finished_total", { result: "exhausted" }) === 1 ? samples : null;
  });
  expect(value(w, "webhook_attempts_total", { outcome: "delivered" })).toBe(1);
  // The no-URL shop's SUCCESS webhook: its first attempt and its one retry sent nothing, counted apart from failures.
  expect(value(w, "webhook_attempts_total", { outcome: "no_url" })).toBe(2);
  // On /metrics at 0 from the start (a rate sees the first failure as an increase), and none failed.
  expect(value(w, "webhook_attempts_total", { outcome: "failed" })).toBe(0);
  expect(value(w, "webhook_attempts_total", { outcome: "blocked" })).toBe(0);
  expect(value(w, "webhook_shops_failing")).toBe(0);
  expect(value(w, "webhook_failing_shop_ratio")).toBeUndefined();
  expect(value(w, "webhook_series_finished_total", { result: "delivered" })).toBe(1);
  expect(value(w, "webhook_attempt_duration_seconds_count")).toBe(3);
  for (const stream of ["PAYMENTS", "WEBHOOKS"]) {
    for (const gauge of ["jetstream_consumer_pending_messages", "jetstream_consumer_ack_pending_messages", "jetstream_consumer_redelivered_messages"]) {
      expect({ stream, gauge, value: value(w, gauge, { stream, consumer: "webhook-dispatcher" }) }).toEqual({ stream, gauge, value: 0 });
    }
  }
});

test("balance: events consumed by effect, its consumer's pending counts, the RPC answered", async () => {
  const b = await eventually(async () => {
    const samples = await scrape("balance");
    return value(samples, "balance_payment_events_total", { status: "CANCELED" }) === 1 ? samples : null;
  });
  expect(value(b, "balance_payment_events_total", { status: "CANCELED", effect: "no-money" })).toBe(1);
  expect(value(b, "jetstream_consumer_pending_messages", { stream: "PAYMENTS", consumer: "balance" })).toBe(0);
  expect(value(b, "jetstream_consumer_ack_pending_messages", { stream: "PAYMENTS", consumer: "balance" })).toBe(0);
  expect(value(b, "nats_rpc_handled_total", { subject: "balance.v1.get", outcome: "ok" })).toBe(1);
  // No payout here: none open, none old (their counting: services/balance/src/payouts.test.ts).
  for (const status of ["PENDING", "SENT"]) {
    expect(value(b, "balance_payouts_open", { status })).toBe(0);
    expect(value(b, "balance_payouts_oldest_open_age_seconds", { status })).toBe(0);
  }
});

test("paypage and directory: their pages and RPCs are counted", async () => {
  const page = await scrape("paypage");
  expect(value(page, "http_request_duration_seconds_count", { method: "GET", route: "/pay/:id", status: "200" })).toBe(1);
  expect(value(page, "nats_request_duration_seconds_count", { subject: "payments.v1.checkout.get", outcome: "ok" })).toBeGreaterThanOrEqual(1);
  const directory = await scrape("directory");
  expect(value(directory, "nats_rpc_handled_total", { subject: "directory.v1.shop.create", outcome: "ok" })).toBe(2);
});

/** Each service's label values: metric → label → the distinct values it has. */
async function labelValues(): Promise<Map<string, Map<string, Map<string, Set<string>>>>> {
  const out = new Map<string, Map<string, Map<string, Set<string>>>>();
  for (const name of SERVICE_NAMES) {
    const metrics = new Map<string, Map<string, Set<string>>>();
    for (const { name: metric, labels } of await scrape(name)) {
      const byLabel = metrics.get(metric) ?? metrics.set(metric, new Map()).get(metric)!;
      for (const [label, v] of Object.entries(labels)) (byLabel.get(label) ?? byLabel.set(label, new Set()).get(label)!).add(v);
    }
    out.set(name, metrics);
  }
  return out;
}

// Last: its traffic would change the counts the tests above compare.
test("no label grows with shops or payments: every service's series after traffic from many shops, a few failing, are bounded", async () => {
  const SHOPS = 16;
  const before = await labelValues();
  const failing = startReceiver(() => new Response("down", { status: 500 }));
  try {
    const shops = await Promise.all(
      Array.from({ length: SHOPS }, (_, i) => stack.createShop({ name: `Many ${i}`, webhookUrl: i % 2 === 0 ? failing.url : receiver.url })),
    );
    const ids = new Set(shops.map((s) => s.shopId));
    await Promise.all(
      shops.map(async (s, i) => {
        for (let n = 0; n < 3; n++) {
          const res = await eventually(async () => {
            const r = await stack.api(s.apiKey, "/v1/payments", { method: "POST", json: { orderId: `many-${i}-${n}`, amountKopecks: 1000 + n } });
            return r.status === 201 ? r : null;
          });
          const { id } = Payment.parse(await res.json());
          ids.add(id);
          expect((await stack.api(s.apiKey, `/v1/payments/${id}`)).status).toBe(200);
          expect((await stack.api(s.apiKey, `/v1/payments/${id}/cancel`, { method: "POST" })).status).toBe(200);
        }
      }),
    );
    // Every failing shop's three webhooks given up (an attempt and its one retry each): six failed attempts a shop.
    const w = await eventually(async () => {
      const samples = await scrape("webhook-dispatcher");
      return value(samples, "webhook_series_finished_total", { result: "exhausted" }) === 1 + (SHOPS / 2) * 3 ? samples : null;
    }, 30_000);

    const after = await labelValues();
    const grown: string[] = [];
    const ours: string[] = [];
    for (const [service, metrics] of after) {
      for (const [metric, labels] of metrics) {
        for (const [label, values] of labels) {
          const added = values.size - (before.get(service)?.get(metric)?.get(label)?.size ?? 0);
          if (added >= SHOPS / 2) grown.push(`${service} ${metric}{${label}}: ${added} more values`);
          if (metric !== "webhook_failing_shop_ratio" && [...values].some((v) => ids.has(v))) ours.push(`${service} ${metric}{${label}}`);
        }
      }
    }
    expect(grown).toEqual([]);
    // A shop's or a payment's id is a label value only where the few failing shops are named.
    expect(ours).toEqual([]);
    // Which are: all eight failing shops counted, the five named (each failed every attempt).
    expect(value(w, "webhook_shops_failing")).toBe(SHOPS / 2);
    expect(w.filter((x) => x.name === "webhook_failing_shop_ratio").map((x) => x.value)).toEqual([1, 1, 1, 1, 1]);
  } finally {
    failing.stop();
  }
});
