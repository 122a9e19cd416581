import type { ShopRecord } from "@payaccept/contracts";
import { Stack } from "../../tests/harness/stack.ts";
import { SERVICE_NAMES, type ServiceName } from "../../infra/launcher/services.ts";
import { rssMiB } from "./proc.ts";
import { databaseOf } from "@payaccept/platform";
import { readShop, seedPayments, seedPaymentsPg, type SeededShop } from "./seed-payments.ts";

export type BenchShop = { shopId: string; accountId: string; apiKey: string };

export type BenchStack = {
  stack: Stack;
  shop: BenchShop;
  seeded: SeededShop;
  /** VmRSS of every service after start and settling, before any load. */
  idleRssMiB: Record<ServiceName, number>;
  /** Processes whose CPU the report follows: the request path, the event consumers, nats-server, and the rest of the stack together. */
  pids: Record<string, number | number[]>;
};

/** The spec's limits (600/min per method, 60/min balance, 2000/min per IP) would cap a benchmark at a few req/s. */
const UNLIMITED = { RATE_LIMIT_PER_METHOD: "1000000", RATE_LIMIT_PER_IP: "1000000", RATE_LIMIT_BALANCE: "1000000" };

/**
 * The whole stack (every service, as `bun run dev` runs it) through tests/harness/stack.ts, with
 * one live shop holding `rows` payments whose webhooks go to `webhookUrl`. The shop is created
 * through the dashboard's RPC; then payments is stopped, its store is seeded directly
 * (bench/lib/seed-payments.ts) and payments is started again on that store. With `postgres`,
 * the stack's throwaway PostgreSQL holds the rows of every service that can keep them there
 * (payments and balance: tests/harness/stack.ts, POSTGRES_SERVICES).
 */
export async function startBenchStack(opts: { rows: number; sampleSize: number; webhookUrl: string; logLevel: string; settleMs: number; postgres?: boolean; services?: ServiceName[] }): Promise<BenchStack> {
  const stack = await Stack.start({ env: { ...UNLIMITED, LOG_LEVEL: opts.logLevel }, postgres: opts.postgres, services: opts.services });
  try {
    const created = await stack.createShop({ name: "Bench shop", webhookUrl: opts.webhookUrl });
    const record = await readShop(stack.nc, created.shopId);
    const payments = stack.service("payments");
    await payments.stop("SIGTERM");
    // The store payments itself would open with the stack's environment; long statements allowed (ANALYZE).
    const store = databaseOf({ ...stack.env, DATA_DIR: stack.dataDir, PAYMENTS_DATABASE_POOL: 4, DATABASE_STATEMENT_TIMEOUT: 600_000, DATABASE_CONNECT_TIMEOUT: 10_000 }, "PAYMENTS", "payments.db");
    const seeded =
      store.engine === "sqlite" ? await seedPayments(store.path, record, opts.rows, opts.sampleSize) : await seedPaymentsPg(store, record, opts.rows, opts.sampleSize);
    payments.start();
    await payments.waitReady(60_000);
    await Bun.sleep(opts.settleMs);
    await readModelOn(stack);
    const idleRssMiB = Object.fromEntries(running(stack).map((n) => [n, rssMiB(stack.service(n).proc!.pid)])) as Record<ServiceName, number>;
    return { stack, shop: { shopId: record.shopId, accountId: record.accountId, apiKey: created.apiKey }, seeded, idleRssMiB, pids: benchPids(stack) };
  } catch (e) {
    await stack.stop();
    throw e;
  }
}

/**
 * Waits until the gateway's read model keeps payments (GATEWAY_READ_MODEL_HOLD after its start,
 * docs/gateway.md), so that the read rows measure it from their first request; again after a
 * restart of the gateway.
 */
export async function readModelOn(stack: Stack): Promise<void> {
  if (!stack.services.has("gateway")) return;
  const deadline = Date.now() + 60_000;
  while (!(await (await fetch(`${stack.url("gateway")}/metrics`)).text()).includes("\ngateway_read_model_on 1")) {
    if (Date.now() > deadline) throw new Error("the gateway's read model was not on within 60 s (gateway_read_model_on)");
    await Bun.sleep(250);
  }
}

/** The services the stack runs (all of them unless it was started with fewer). */
const running = (stack: Stack) => SERVICE_NAMES.filter((n) => stack.services.has(n));

/** The processes the report follows, as they are now (a restarted service has a new pid). */
export function benchPids(stack: Stack): Record<string, number | number[]> {
  const pid = (n: ServiceName) => stack.service(n).proc!.pid;
  const followed = ["gateway", "payments", "balance", "webhook-dispatcher"] as const;
  const others = ["directory", "dashboard", "paypage", "acquirer-emulator"] as const;
  const has = (n: ServiceName) => stack.services.has(n);
  return {
    ...Object.fromEntries(followed.filter(has).map((n) => [n, pid(n)])),
    "nats-server": stack.nats.proc.pid,
    "other services": others.filter(has).map(pid),
  };
}

export type WebhookShop = { record: ShopRecord; apiKey: string };

/** More live shops whose webhooks go to `webhookUrl`, created through the directory's RPC. */
export async function createShops(stack: Stack, count: number, webhookUrl: string): Promise<WebhookShop[]> {
  const shops: WebhookShop[] = [];
  for (let i = 0; i < count; i++) {
    const created = await stack.createShop({ name: `Webhook bench shop ${i + 1}`, webhookUrl });
    shops.push({ record: await readShop(stack.nc, created.shopId), apiKey: created.apiKey });
  }
  return shops;
}

export type ShopPayment = { apiKey: string; id: string };

/** `perShop` CREATED payments in each shop, created through the API; returned shop after shop in turn. */
export async function createPaymentsThroughApi(gatewayUrl: string, shops: WebhookShop[], perShop: number): Promise<ShopPayment[]> {
  const jobs = Array.from({ length: perShop * shops.length }, (_, i) => ({ shop: shops[i % shops.length]!, n: i }));
  const created: ShopPayment[] = new Array(jobs.length);
  const worker = async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) {
      const res = await fetch(`${gatewayUrl}/v1/payments`, {
        method: "POST",
        headers: { "X-Api-Key": job.shop.apiKey, "Content-Type": "application/json" },
        body: JSON.stringify({ orderId: `webhook-bench-${job.n}`, amountKopecks: 10_000 }),
        signal: AbortSignal.timeout(10_000),
      });
      if (res.status !== 201) throw new Error(`creating a payment for the webhook bench: HTTP ${res.status} ${await res.text()}`);
      created[job.n] = { apiKey: job.shop.apiKey, id: ((await res.json()) as { id: string }).id };
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return created;
}
