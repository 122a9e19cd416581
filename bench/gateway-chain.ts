/**
 * `bun bench/gateway-chain.ts [iterations]`: the gateway's own work for a get and a lookup
 * answered from its read model, in one process, through the gateway's app as main.ts builds it
 * (request id, access line, per-IP limit, route, key, per-key limit, validation, handler), without
 * Bun's HTTP server: µs of the process's CPU per request in a sequential loop (the median of five rounds, and the least),
 * which moves less than a loaded stack's figures. The log lines go to /dev/null synchronously,
 * as the services write theirs to stdout. Compare two checkouts by running it in each, alternated.
 */
import { createLogger, createServiceApp, sha256Hex, type ActiveKey } from "@payaccept/platform";
import type { NatsConnection } from "@payaccept/platform";
import type { Server } from "bun";
import pino from "pino";
import type { IdempotencyClaims } from "../services/gateway/src/idempotency/claims.ts";
import { SlidingWindowLimiter } from "../services/gateway/src/http/rate-limiter.ts";
import { PaymentViews } from "../services/gateway/src/reads/payment-views.ts";
import { apiRoutes } from "../services/gateway/src/routes/api.ts";

const iterations = Number(process.argv[2] ?? 50_000);
const apiKey = "pk_live_4f9c2b7e1a6d3c8b5e0f7a2d9c4b1e6a3f8d5c2b7e";
const shopId = "0190f0c4-7b6a-7000-8000-0000000000aa";
const found = {
  shop: { shopId, accountId: shopId, active: true },
  key: { keyId: "k1", shopId, displayPrefix: "pk_live_4f9c" },
} as unknown as ActiveKey;
const keyHash = sha256Hex(apiKey);
const payments = Array.from({ length: 1000 }, (_, i) => {
  const id = `0190f0c4-7b6a-7000-8000-${String(i).padStart(12, "0")}`;
  const body = JSON.stringify({
    id, shopId, orderId: `order-${i}`, amountKopecks: 12345, commissionKopecks: 370, status: "CREATED", description: "Bench order",
    payUrl: `https://pay.example/p/${id}`, metadata: { cart: String(i) }, telegramId: "123456789", createdAt: "2026-11-29T10:00:00.000Z", updatedAt: "2026-11-29T10:00:00.000Z",
  });
  return { id, orderId: `order-${i}`, bytes: new TextEncoder().encode(body) as Uint8Array<ArrayBuffer> };
});
const byId = new Map(payments.map((p) => [p.id, p.bytes]));
const byOrder = new Map(payments.map((p) => [p.orderId, p.bytes]));

const log = createLogger("gateway", "info", pino.destination({ dest: "/dev/null", sync: true }));
const views = new PaymentViews({ maxEntries: 50_000, maxAgeMs: 3_600_000, holdMs: 0 });
views.notice({ source: "bench", seq: 1, ids: [] });
const unlimited = () => new SlidingWindowLimiter(1_000_000_000, { windowMs: 60_000, maxKeys: 100_000 });
const app = createServiceApp(log, {}, { inboundTrace: "link" });
app.route(
  "/api",
  apiRoutes({
    nc: undefined as unknown as NatsConnection,
    directory: { activeKey: (h) => (h === keyHash ? found : undefined) },
    limiters: { perIp: unlimited(), perMethod: unlimited(), balance: unlimited() },
    trustedProxies: [],
    maxBodyBytes: 65_536,
    rpcTimeoutMs: 3000,
    slowCallTimeoutMs: 15_000,
    claims: undefined as unknown as IdempotencyClaims,
    views,
  }),
);
const env = { server: { requestIP: () => ({ address: "127.0.0.1", family: "IPv4", port: 40000 }) } as unknown as Server<undefined> };
const headers = { "X-Api-Key": apiKey, Host: "127.0.0.1:3000", "User-Agent": "wrk" };

// Each payment read once from "payments" (the stand-in below), so that every measured read is from memory.
for (const p of payments) {
  await views.byId(shopId, p.id, async () => byId.get(p.id)!);
  await views.byOrderId(shopId, p.orderId, async () => byOrder.get(p.orderId)!);
}

const rows: [string, (i: number) => Request][] = [
  ["get by id (memory)", (i) => new Request(`http://127.0.0.1:3000/api/v1/payments/${payments[i % payments.length]!.id}`, { headers })],
  ["lookup by orderId (memory)", (i) => new Request(`http://127.0.0.1:3000/api/v1/payments?orderId=${payments[i % payments.length]!.orderId}`, { headers })],
];

for (const [name, request] of rows) {
  const first = await app.fetch(request(0), env);
  if (first.status !== 200) throw new Error(`${name}: ${first.status} ${await first.text()}`);
  const rounds: number[] = [];
  for (let r = 0; r < 6; r++) {
    const n = r === 0 ? iterations / 5 : iterations;
    const t = process.cpuUsage();
    for (let i = 0; i < n; i++) await (await app.fetch(request(i), env)).arrayBuffer();
    const used = process.cpuUsage(t);
    if (r > 0) rounds.push((used.user + used.system) / n);
  }
  rounds.sort((a, b) => a - b);
  console.log(`${name.padEnd(30)} ${rounds[2]!.toFixed(2).padStart(7)} µs per request (least ${rounds[0]!.toFixed(2)})`);
}
