/**
 * What a rate limit shared through NATS KV would cost (docs/gateway.md, "Replicas"): a counter per
 * key and window, incremented with compare-and-set on its revision, against a request/reply that
 * does nothing, both with 64 in flight on one local nats-server. `bun bench/kv-rate-counter.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "@nats-io/transport-node";
import { Kvm } from "@nats-io/kv";
import { startNatsServer } from "../infra/launcher/nats-server.ts";
import { freePort } from "../tests/harness/stack.ts";
const dir = mkdtempSync(join(tmpdir(), "kvcost-"));
const port = await freePort();
const nats = await startNatsServer({ port, dataDir: dir, logFile: join(dir, "log") });
const nc = await connect({ servers: `nats://127.0.0.1:${port}` });
const kv = await new Kvm(nc).create("ratelimit", { history: 1, ttl: 120_000 });
nc.subscribe("noop", {
  callback: (_e, m) => {
    m.respond("");
  },
});
const N = 4000;
const C = 64;
async function run(name: string, op: (i: number) => Promise<unknown>) {
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next < N) await op(next++);
    }),
  );
  const s = (performance.now() - t0) / 1000;
  console.log(`${name}: ${(N / s).toFixed(0)} ops/s at ${C} in flight`);
}
await run("request/reply noop", () => nc.request("noop", "", { timeout: 5000 }));
// A counter per key and window: read-modify-write with compare-and-set on the revision (retry on conflict).
await run("KV increment, 64 distinct keys", async (i) => {
  const key = `k${i % 64}.w1`;
  for (;;) {
    const e = await kv.get(key);
    try {
      if (!e) await kv.create(key, "1");
      else await kv.update(key, String(Number(e.string()) + 1), e.revision);
      return;
    } catch {
      // another increment won the revision: read again
    }
  }
});
await nc.close();
await nats.stop();
rmSync(dir, { recursive: true, force: true });
