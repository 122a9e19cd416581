/**
 * `bun bench/pg-create-batch.ts [checkout…]`: payments' PostgreSQL create batch in isolation, for
 * an A/B of two versions of the store on a shared machine (docs/performance.md). One
 * throwaway PostgreSQL; each checkout's store (its own `payments-store.pg.ts`) in turn, BENCH_PG_ROUNDS
 * rounds, alternated: BENCH_PG_CREATES creates in batches of exactly BENCH_PG_BATCH (all queued
 * in one tick, one batch after another), so every version does the same work per batch whatever
 * the machine's load does to the batch sizes of a stack under wrk. Reports this process's CPU
 * (payments' store, drizzle and Bun.SQL) and the server's (postmaster and backends) per create.
 * BENCH_PG_KEYED=1: creates with an Idempotency-Key (insertKeyed). Default checkout: this one.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startPostgres } from "../tests/harness/postgres.ts";
import { benchEnv } from "./lib/measure.ts";
import { cpuSeconds, withChildren } from "./lib/proc.ts";
import type { PaymentsStore } from "../services/payments/src/store/payments-store.ts";
import { newPayment } from "../services/payments/test-support/new-payment.ts";

const checkouts = (process.argv.length > 2 ? process.argv.slice(2) : [join(import.meta.dir, "..")]).map((c) => resolve(c));
const rounds = benchEnv("BENCH_PG_ROUNDS", 3);
const batch = benchEnv("BENCH_PG_BATCH", 16);
const creates = Math.ceil(benchEnv("BENCH_PG_CREATES", 3200) / batch) * batch;
const keyed = process.env.BENCH_PG_KEYED === "1";
type Open = (choice: object, hooks: object) => Promise<PaymentsStore>;
const opens: Open[] = await Promise.all(checkouts.map(async (c) => (await import(join(c, "services/payments/src/store/open-payments-store.ts"))).openPaymentsStore));
const pg = await startPostgres();
const server = Number(readFileSync(join(pg.dir, "db", "postmaster.pid"), "utf8").split("\n")[0]);
const serverSeconds = () => withChildren(server).reduce((sum, pid) => sum + cpuSeconds(pid), 0);
const per: { app: number[]; pg: number[] }[] = checkouts.map(() => ({ app: [], pg: [] }));
let schemas = 0;
try {
  for (let round = 0; round < rounds; round++) {
    for (const [v, open] of opens.entries()) {
      const store = await open({ engine: "postgres", variable: "BENCH_DATABASE_URL", url: pg.url, schema: `b${++schemas}`, pool: 10, statementTimeoutMs: 30_000, connectTimeoutMs: 5000 }, { onCommitted: () => {}, onEnded: () => {} });
      let n = 0;
      const one = () => {
        const i = n++;
        const input = newPayment("shop", `o-${i}`);
        if (!keyed) return store.payments.insert(input, Date.now(), 60_000);
        return store.payments.insertKeyed(input, Date.now(), 60_000, { key: `k-${i}`, fingerprint: "f".repeat(64), callId: null, status: 201, answer: (row) => `{"id":"${row.id}"}` });
      };
      const batches = async (count: number) => {
        for (let j = 0; j < count; j++) await Promise.all(Array.from({ length: batch }, one));
      };
      await batches(Math.ceil(300 / batch)); // warm-up: JIT, Bun.SQL's prepared statements
      const serverBefore = serverSeconds();
      const before = process.cpuUsage();
      await batches(creates / batch);
      const used = process.cpuUsage(before);
      per[v]!.app.push((used.user + used.system) / creates);
      per[v]!.pg.push(((serverSeconds() - serverBefore) * 1e6) / creates);
      await store.close();
    }
  }
  const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
  const list = (xs: number[]) => xs.map((x) => Math.round(x).toLocaleString("en")).join(", ");
  console.log(`CPU µs per create, batches of ${batch}${keyed ? ", keyed" : ""}, ${creates} creates a round`);
  console.log("| checkout | payments' store | postgres | rounds |\n|---|---|---|---|");
  for (const [v, c] of checkouts.entries()) console.log(`| ${c} | ${list(per[v]!.app)}: mean ${mean(per[v]!.app)} | ${list(per[v]!.pg)}: mean ${mean(per[v]!.pg)} | ${rounds} |`);
} finally {
  await pg.stop();
}
