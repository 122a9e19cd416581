import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Payment, rpcs } from "@payaccept/contracts";
import { SERVICE_NAMES, type ServiceName } from "../infra/launcher/services.ts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { dashboardQueries, dashboards, panelsOf, asSentByGrafana, promql, recordedNames, rules } from "./harness/observability.ts";
import { Prometheus, type Alert } from "./harness/prometheus.ts";
import { eventually, Stack, type ShopCreated } from "./harness/stack.ts";
import { BankApp } from "./payments-fixtures.ts";

/**
 * A real Prometheus with the rules of infra/prometheus, scraping a real stack configured as compose
 * runs it (every service with rows on PostgreSQL; tests/metrics.test.ts reads the same metrics on
 * SQLite): every target up, every rule and dashboard query evaluating and naming only series and
 * labels the services export, no alert on a healthy stack, and the alerts that must fire going
 * pending when their cause is made real: a merchant's endpoint failing, a service killed, NATS gone.
 * Alerts are judged by state `pending` or `firing`: the `for` durations are minutes, their effect
 * is the promtool unit tests' (tests/infra-prometheus.test.ts).
 */
setDefaultTimeout(180_000);

/**
 * Liveness bound of each wait: scrapes are every 2 s, evaluations every second. A scrape that
 * times out on a loaded machine makes an availability alert pending until the next one succeeds,
 * so the states are awaited, not read once.
 */
const LIVENESS_MS = 60_000;

/** Series Prometheus makes itself. */
const PROMETHEUS_OWN = new Set(["up", "ALERTS"]);
/** Labels every scraped series has. */
const TARGET_LABELS = new Set(["job", "instance"]);

/** Metrics with no series while all is well, and why: their declaration on /metrics stands for them. */
const NO_SERIES_WHEN_HEALTHY: Record<string, { service: ServiceName; why: string }> = {
  webhook_failing_shop_ratio: { service: "webhook-dispatcher", why: "it names only shops whose webhooks fail" },
};

/** Panels that show nothing while all is well, and why. */
const EMPTY_WHEN_HEALTHY: Record<string, string> = {
  "Failing readiness checks": "only failing checks are drawn",
  "Alerts firing": "none fires on a healthy stack (the failing shop's alert is still pending)",
  "NATS requests left unanswered": "every request found its responder",
};

let stack: Stack;
let prometheus: Prometheus;
let receiver: Receiver;
let shop: ShopCreated;
let trafficEnded: number;

const active = async (alertname: string): Promise<Alert[]> => (await prometheus.alerts()).filter((a) => a.labels.alertname === alertname);

beforeAll(async () => {
  // Short retries, so a failing endpoint's deliveries make attempts for some seconds.
  stack = await Stack.start({ postgres: true, env: { WEBHOOK_RETRY_DELAYS: Array(10).fill("1s").join(",") } });
  prometheus = await Prometheus.start(stack);
  receiver = startReceiver();
  shop = await stack.createShop({ name: "Observed", webhookUrl: receiver.url });
  /** A POST with an Idempotency-Key, sent again (safely) until it is answered 201: a loaded machine may answer 503 first. */
  const created = (path: string, json: unknown, key: string) =>
    eventually(async () => {
      const res = await stack.api(shop.apiKey, path, { method: "POST", json, headers: { "Idempotency-Key": key } });
      return res.status === 201 && res;
    }, LIVENESS_MS);

  // A live payment canceled, with its webhook.
  const canceled = Payment.parse(await (await created("/v1/payments", { orderId: "observed-1", amountKopecks: 2500 }, "observed-1")).json());
  expect((await stack.api(shop.apiKey, `/v1/payments/${canceled.id}`)).status).toBe(200);
  expect((await stack.api(shop.apiKey, `/v1/payments/${canceled.id}/cancel`, { method: "POST" })).status).toBe(200);

  // A live SBP payment paid in the bank app, then partly refunded: money in and out, live.
  const paying = await stack.call(rpcs.payments.create, { shopId: shop.shopId, request: { orderId: "observed-2", amountKopecks: 150000, method: "SBP" } });
  // Repeatable: the acquirer's first session may outlast its timeout on a loaded machine.
  const view = await eventually(() => stack.call(rpcs.payments.start, { id: paying.id, method: "SBP" }), LIVENESS_MS);
  await new BankApp(stack).sbp(view.sbp!.qrPayload, "pay");
  await eventually(async () => (await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: paying.id })).status === "SUCCESS", LIVENESS_MS);
  await created(`/v1/payments/${paying.id}/refunds`, { amountKopecks: 50000 }, "observed-2-refund");
  await eventually(async () => {
    const { items } = await stack.call(rpcs.payments.listRefunds, { shopId: shop.shopId, id: paying.id });
    return items.length === 1 && items[0]!.status === "SUCCEEDED";
  }, LIVENESS_MS);
  await eventually(() => receiver.requests.length === 2, LIVENESS_MS);
  trafficEnded = Date.now();
  await prometheus.scrapedAfter(trafficEnded, LIVENESS_MS);
});

afterAll(async () => {
  await prometheus?.stop();
  receiver?.stop();
  await stack?.stop();
});

/** Waits until every rule has been evaluated (with health ok or not) after the given moment. */
const rulesEvaluatedAfter = (at: number) =>
  eventually(async () => {
    const states = await prometheus.rules();
    return states.length === rules().length && states.every((r) => Date.parse(r.lastEvaluation) > at) && states;
  }, LIVENESS_MS);

describe("Prometheus over a healthy stack", () => {
  test("scrapes every service of the launcher, each target up and ready", async () => {
    const jobs = [...SERVICE_NAMES].sort();
    const targets = await prometheus.scrapedAfter(trafficEnded, LIVENESS_MS);
    expect(targets.map((t) => t.labels.job).sort()).toEqual(jobs);
    const ready = await eventually(async () => {
      const samples = await prometheus.query("service_ready == 1");
      return samples.length === jobs.length && samples;
    }, LIVENESS_MS);
    expect(ready.map((s) => s.metric.job).sort()).toEqual(jobs);
  });

  test("every rule and every panel query evaluates, and selects only metrics and labels the services export", async () => {
    const states = await rulesEvaluatedAfter(trafficEnded);
    expect(states.filter((r) => r.health !== "ok").map((r) => `${r.name}: ${r.lastError}`)).toEqual([]);

    const exported = new Set(await prometheus.names());
    const recorded = recordedNames();
    const queries = [...dashboardQueries(), ...rules().map((r) => ({ where: `rule ${r.record ?? r.alert}`, expr: r.expr }))];
    const problems: string[] = [];
    for (const { where, expr } of queries) {
      await prometheus.query(expr).catch((e: Error) => problems.push(`${where}: ${e.message}`));
      for (const { metric, labels } of promql(expr).selectors) {
        if (PROMETHEUS_OWN.has(metric) || recorded.has(metric)) continue;
        const quiet = NO_SERIES_WHEN_HEALTHY[metric];
        if (quiet && !exported.has(metric)) {
          const declared = (await (await fetch(`${stack.url(quiet.service)}/metrics`)).text()).includes(`# TYPE ${metric} gauge`);
          if (!declared) problems.push(`${where}: ${quiet.service} does not declare ${metric}`);
          continue;
        }
        if (!exported.has(metric)) {
          problems.push(`${where}: no service exports ${metric}`);
          continue;
        }
        const has = await prometheus.labelsOf(metric);
        for (const label of labels) if (!has.has(label) && !TARGET_LABELS.has(label)) problems.push(`${where}: ${metric} has no label ${label}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("no alert is pending or firing", async () => {
    await rulesEvaluatedAfter(trafficEnded + 2000);
    // A rule true on a healthy stack stays true; a scrape that timed out clears with the next one.
    let last: Alert[] = [];
    await eventually(async () => (last = await prometheus.alerts()).length === 0, LIVENESS_MS).catch(() => {});
    expect(last).toEqual([]);
  });
});

describe("the alerts that must fire do", () => {
  test("a shop whose endpoint answers 500: WebhookShopFailing for that shop alone", async () => {
    const failing = startReceiver(() => new Response("down", { status: 500 }));
    try {
      const failingShop = await stack.createShop({ name: "Failing endpoint", webhookUrl: failing.url });
      for (let i = 0; i < 3; i++) {
        const res = await stack.api(failingShop.apiKey, "/v1/payments", { method: "POST", json: { orderId: `failing-${i}`, amountKopecks: 1000 } });
        expect(res.status).toBe(201);
        const { id } = Payment.parse(await res.json());
        expect((await stack.api(failingShop.apiKey, `/v1/payments/${id}/cancel`, { method: "POST" })).status).toBe(200);
      }
      const alerts = await eventually(async () => {
        const a = await active("WebhookShopFailing");
        return a.length > 0 && a;
      }, LIVENESS_MS);
      expect(alerts.map((a) => ({ shop: a.labels.shop, severity: a.labels.severity }))).toEqual([{ shop: failingShop.shopId, severity: "warning" }]);
      expect(failing.requests.length).toBeGreaterThanOrEqual(3);
    } finally {
      failing.stop();
    }
  });

  test("with traffic of every kind behind it, each dashboard panel shows data (but those empty while all is well)", async () => {
    const emptyPanels = async () => {
      const empty: string[] = [];
      for (const { dashboard } of dashboards()) {
        for (const panel of panelsOf(dashboard)) {
          if (!panel.targets || panel.title in EMPTY_WHEN_HEALTHY) continue;
          const series = await Promise.all(panel.targets.map((t) => prometheus.query(asSentByGrafana(t.expr))));
          if (series.every((s) => s.length === 0)) empty.push(panel.title);
        }
      }
      return empty;
    };
    // A rate needs two scrapes of its counter and a recorded rule one evaluation after them: on a
    // loaded machine a scrape can time out, so the panels are awaited, not read once.
    let empty: string[] = [];
    await eventually(async () => (empty = await emptyPanels()).length === 0, LIVENESS_MS, 1000).catch(() => {});
    expect(empty).toEqual([]);
  });

  test("a service killed: ServiceDown and ReplicaDown for it", async () => {
    await stack.kill("receipts");
    const jobsOf = async (alertname: string) => (await active(alertname)).map((a) => a.labels.job ?? "");
    let down: string[] = [];
    await eventually(async () => (down = await jobsOf("ServiceDown")).join() === "receipts" && (await jobsOf("ReplicaDown")).join() === "receipts", LIVENESS_MS).catch(() => {});
    expect({ ServiceDown: down, ReplicaDown: await jobsOf("ReplicaDown") }).toEqual({ ServiceDown: ["receipts"], ReplicaDown: ["receipts"] });
  });

  test("NATS gone: the gateway's /readyz flips, and ReplicaNotReady names its nats check", async () => {
    await stack.nats.stop();
    const alerts = await eventually(async () => {
      const a = (await active("ReplicaNotReady")).filter((x) => x.labels.job === "gateway");
      return a.length > 0 && a;
    }, LIVENESS_MS);
    expect(alerts.map((a) => a.labels.check)).toEqual(["nats"]);
    expect((await fetch(`${stack.url("gateway")}/readyz`)).status).toBe(503);
  });
});
