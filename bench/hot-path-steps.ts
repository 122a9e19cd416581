/**
 * `bun bench/hot-path-steps.ts [iterations]`: the cost of each step of the API's hot path in
 * isolation, in one process, with the code the gateway and payments run: what a create
 * and a get do besides Bun's HTTP server and the NATS round trip. Each step runs `iterations`
 * times (default 200,000) after a tenth as many of warm-up; the figure is the median of five
 * such rounds, in ns per call; payments' store writes, which grow the file, run a fixed number of
 * times and are timed as CPU. docs/performance.md has the figures and what was done with them.
 */
import { CreatePaymentRequest, IdempotencyKey, rpcs } from "@payaccept/contracts";
import { createLogger, decodeJson, encodeJson, RequestLog, sha256Hex } from "@payaccept/platform";
import { headers } from "@nats-io/transport-node";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { SlidingWindowLimiter } from "../services/gateway/src/http/rate-limiter.ts";
import { canonicalJson } from "../services/gateway/src/idempotency/middleware.ts";
import { toPayment } from "../services/payments/src/domain/views.ts";
import { createPaymentsRepo, openPaymentsFile } from "../services/payments/src/store/payments-store.sqlite.ts";
import type { NewPayment } from "../services/payments/src/store/payments-store.ts";

const iterations = Number(process.argv[2] ?? 200_000);

/** Median ns per call of `fn` over five rounds. */
function cost(fn: (i: number) => unknown): number {
  let sink: unknown;
  for (let i = 0; i < iterations / 10; i++) sink = fn(i);
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t = Bun.nanoseconds();
    for (let i = 0; i < iterations; i++) sink = fn(i);
    rounds.push((Bun.nanoseconds() - t) / iterations);
  }
  if (sink === Symbol.for("never")) console.log(sink);
  return rounds.sort((a, b) => a - b)[2]!;
}

const apiKey = "pk_live_4f9c2b7e1a6d3c8b5e0f7a2d9c4b1e6a3f8d5c2b7e";
const body = JSON.stringify({ orderId: "bench-0-12345", amountKopecks: 12345, description: "Bench order", telegramId: "123456789", metadata: { cart: "12345" } });
const parsed = JSON.parse(body) as unknown;
const request = CreatePaymentRequest.parse(parsed);
const shopId = "0190f0c4-7b6a-7000-8000-0000000000aa";
const rpcBody = encodeJson({ shopId, request });
// The services write their lines synchronously to stdout; here to /dev/null the same way.
const log = createLogger("gateway", "info", pino.destination({ dest: "/dev/null", sync: true }));
const limiter = new SlidingWindowLimiter(1_000_000_000, { windowMs: 60_000, maxKeys: 100_000 });
const keyHash = sha256Hex(apiKey);
// payments.db in a temporary folder, migrated as payments opens it (WAL), for the store's steps.
const storeDir = mkdtempSync(join(tmpdir(), "payaccept-steps-"));
process.on("exit", () => rmSync(storeDir, { recursive: true, force: true }));
const store = openPaymentsFile(join(storeDir, "payments.db"));
const repo = createPaymentsRepo(store, () => {});
let orders = 0;
const newPayment = (): NewPayment => ({
  shopId, accountId: shopId, orderId: `steps-${++orders}`, amountKopecks: 12345, commissionKopecks: 370, description: "Bench order", email: null,
  method: null, telegramId: "123456789", metadata: { cart: "12345" }, receipt: null, successUrl: null, failUrl: null, isTest: false,
  createCallId: null, customerId: null, saveMethod: false,
});
const seeded = repo.insert(newPayment(), Date.now(), 3_600_000);
/** Payments' batch of creates under load: the creates of one event-loop turn in one transaction (insertMany, as its Batcher calls it). */
const GROUP = 32;
const hasher = new Bun.CryptoHasher("sha256");

const steps: [string, (i: number) => unknown][] = [
  ["API key: sha256Hex (node:crypto createHash)", () => sha256Hex(apiKey)],
  ["API key: Bun.CryptoHasher, reused", () => hasher.update(apiKey).digest("hex")],
  ["API key: Bun.SHA256.hash → hex", () => Bun.SHA256.hash(apiKey, "hex")],
  ["API key: Map lookup of the hash", () => new Map([[keyHash, 1]]).get(keyHash)],
  ["create body: JSON.parse", () => JSON.parse(body)],
  ["create body: CreatePaymentRequest.safeParse (zod)", () => CreatePaymentRequest.safeParse(parsed)],
  ["create body: metadata size check (stringify + encode)", () => new TextEncoder().encode(JSON.stringify(request.metadata)).byteLength],
  ["create body: metadata size check (Buffer.byteLength)", () => Buffer.byteLength(JSON.stringify(request.metadata))],
  ["Idempotency-Key: IdempotencyKey.safeParse", () => IdempotencyKey.safeParse("0000000a-0000-4000-8000-000000012345")],
  ["Idempotency-Key: parse + canonicalJson of the body", () => canonicalJson(JSON.parse(body))],
  ["Idempotency-Key: two sha256Hex (key, fingerprint)", () => sha256Hex(`${shopId}\nkey-1`) + sha256Hex(`POST /api/v1/payments\n${body}`)],
  ["NATS: encodeJson({shopId, request})", () => encodeJson({ shopId, request })],
  ["NATS: request headers (deadline, call id, request id)", () => {
    const h = headers();
    h.set("Payaccept-Deadline", String(Date.now() + 5000));
    h.set("Payaccept-Call-Id", Bun.randomUUIDv7());
    h.set("X-Request-Id", "0190f0c4-7b6a-7000-8000-0000000000bb");
    return h;
  }],
  ["payments: decodeJson + rpc request safeParse (zod)", () => rpcs.payments.create.request.safeParse(decodeJson(rpcBody))],
  ["access log line (pino, RequestLog)", (i) => {
    const l = new RequestLog(log, "0190f0c4-7b6a-7000-8000-0000000000bb");
    l.add({ ip: "127.0.0.1" });
    l.add({ shopId });
    l.info({ method: "POST", path: "/api/v1/payments", route: "/api/v1/payments", status: 201, ms: i % 100 }, "request");
  }],
  ["rate limit: key string + SlidingWindowLimiter.hit", (i) => limiter.hit(`${keyHash} POST /v1/payments${i % 2}`)],
  ["RateLimit-* headers on a Response", () => {
    const res = new Response("{}");
    res.headers.set("RateLimit-Limit", "600");
    res.headers.set("RateLimit-Remaining", "599");
    res.headers.set("RateLimit-Reset", "60");
    return res;
  }],
  ["Bun.randomUUIDv7 (request id, call id)", () => Bun.randomUUIDv7()],
  ["payments: a get's read (byId)", () => repo.byId(seeded.id)],
  ["payments: the reply's body (Payment view + JSON)", () => encodeJson(toPayment(seeded, "http://127.0.0.1:3001"))],
];

/**
 * The store's writes grow the file, so they run a fixed number of times, timed as the process's
 * CPU (user + system): on a busy machine the wall clock of a write mostly measures the wait for a core.
 */
const writes: [string, () => unknown, number][] = [
  ["payments: a create's insert in a transaction of its own (SQLite WAL)", () => repo.insert(newPayment(), Date.now(), 3_600_000), 1],
  [`payments: a create's insert, ${GROUP} per transaction (the batch of a turn), per insert`, () => repo.insertMany(Array.from({ length: GROUP }, () => ({ input: newPayment(), now: Date.now(), ttlMs: 3_600_000 }))), GROUP],
];
const WRITE_CALLS = 2_000;
// The transitions' payments, created beforehand (the warm-up and five rounds of WRITE_CALLS each): a cancel's CREATED ones, a charge's PENDING ones.
const created = (merchantInitiated: boolean) => Array.from({ length: 11 }, () => repo.insertMany(Array.from({ length: 1_000 }, () => ({ input: { ...newPayment(), merchantInitiated }, now: Date.now(), ttlMs: 3_600_000 })))).flat() as { id: string }[];
const toCancel = created(false);
const toCharge = created(true);
const paid = () => ({ paidAt: Date.now(), failureCode: null, failureParams: null, authentication: null });
writes.push(
  ["payments: a cancel's transition (CREATED → CANCELED, its event), alone", () => repo.transition(toCancel.pop()!.id, "cancel", Date.now()), 1],
  ["payments: a charge's transition (PENDING → SUCCESS, its event), alone", () => repo.transition(toCharge.pop()!.id, "pay", Date.now(), { patch: paid }), 1],
);

/** Median CPU ns per request of `fn` over five rounds of WRITE_CALLS / per calls. */
function cpuCost(fn: () => unknown, per: number): number {
  const calls = Math.ceil(WRITE_CALLS / per);
  for (let i = 0; i < calls / 10; i++) fn();
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const before = process.cpuUsage();
    for (let i = 0; i < calls; i++) fn();
    const used = process.cpuUsage(before);
    rounds.push(((used.user + used.system) * 1000) / (calls * per));
  }
  return rounds.sort((a, b) => a - b)[2]!;
}

console.log(`hot-path steps, ${iterations.toLocaleString("en-US")} calls × 5 rounds, median ns per call, Bun ${Bun.version}`);
for (const [name, fn] of steps) console.log(`${name.padEnd(72)} ${cost(fn).toFixed(0).padStart(7)}`);
console.log(`store writes, ${WRITE_CALLS.toLocaleString("en-US")} requests × 5 rounds, median CPU ns per request`);
for (const [name, fn, per] of writes) console.log(`${name.padEnd(72)} ${cpuCost(fn, per).toFixed(0).padStart(7)}`);
