import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { DomainError, type Rpc } from "@payaccept/contracts";
import { call, callIdOf, createLogger, registry, serve } from "@payaccept/platform";
import { z } from "zod";
import { startNatsServer, type NatsProcess } from "../infra/launcher/nats-server.ts";
import { eventually, freePort } from "./harness/stack.ts";

/**
 * serve() and the copies of a call (packages/platform/src/copies.ts) on one real nats-server: a
 * handler slower than NATS_HEDGE_AFTER (300 ms) gets copies of its call from the caller, and every
 * copy that lands while the first one is handled is given the first one's reply, within the
 * caller's deadline, instead of running the handler again.
 */
const Reply = z.object({ run: z.number(), callId: z.string() });
const rpcOf = (subject: string): Rpc<z.ZodObject<{ n: z.ZodNumber }>, typeof Reply> => ({ subject, request: z.object({ n: z.number() }), response: Reply, idempotent: true });

let nats: NatsProcess;
let nc: NatsConnection;
const log = createLogger("copies-test", "silent");

beforeAll(async () => {
  nats = await startNatsServer({ port: await freePort(), dataDir: mkdtempSync(join(tmpdir(), "copies-test-")) });
  nc = await connect({ servers: nats.url });
});
afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

const counter = async (name: string, subject: string) =>
  ((await registry.getSingleMetric(name)?.get())?.values ?? []).filter((v) => v.labels.subject === subject).reduce((a, v) => a + v.value, 0);

/** Serves `subject` with a handler that counts its runs; a run for which `waits(run)` holds waits for release(). */
async function served(subject: string, waits: (run: number) => boolean, answer: (run: number, callId: string) => z.infer<typeof Reply>) {
  const gate = Promise.withResolvers<void>();
  const state = { rpc: rpcOf(subject), runs: 0, arrived: 0, release: () => gate.resolve() };
  // Outside the queue group: sees every request (the first and each copy) as serve() gets it.
  nc.subscribe(subject, { callback: () => void state.arrived++ });
  serve(
    nc,
    state.rpc,
    async (_req, msg) => {
      const run = ++state.runs;
      if (waits(run)) await gate.promise;
      return answer(run, callIdOf(msg)!);
    },
    { queue: "t", log },
  );
  await nc.flush();
  return state;
}

test("copies that land while the first copy is handled get its reply: the handler runs once", async () => {
  const s = await served("copiestest.slow", () => true, (run, callId) => ({ run, callId }));
  const answer = call(nc, s.rpc, { n: 1 }, 10_000);
  // Two copies (one each 300–375 ms) reached serve() while the first run waits.
  await eventually(() => s.arrived >= 3, 30_000);
  await nc.flush();
  const copies = s.arrived - 1;
  expect(s.runs).toBe(1);
  s.release();
  expect(await answer).toMatchObject({ run: 1 });
  // Each of them was given the first run's reply.
  await eventually(async () => (await counter("nats_rpc_copies_joined_total", s.rpc.subject)) >= copies, 30_000);
  expect(s.runs).toBe(1);
});

test("a copy gets the first copy's refusal too, as it was given", async () => {
  const s = await served("copiestest.refused", () => true, () => {
    throw new DomainError("PAYMENT_NOT_CANCELABLE", { status: "SUCCESS" });
  });
  const answer = call(nc, s.rpc, { n: 1 }, 10_000).catch((e: unknown) => e);
  await eventually(() => s.arrived >= 2, 30_000);
  await nc.flush();
  s.release();
  expect(await answer).toMatchObject({ reason: "PAYMENT_NOT_CANCELABLE", params: { status: "SUCCESS" } });
  await eventually(async () => (await counter("nats_rpc_copies_joined_total", s.rpc.subject)) >= 1, 30_000);
  expect(s.runs).toBe(1);
});

test("a copy never waits for the first one past its caller's deadline: it then runs itself", async () => {
  // The first run never ends while the call lasts; every later one answers at once.
  const s = await served("copiestest.stuck", (run) => run === 1, (run, callId) => ({ run, callId }));
  try {
    const answer = call(nc, s.rpc, { n: 1 }, 2_000).catch((e: unknown) => e);
    // A copy gave up waiting for the first run before the deadline, and ran the handler itself.
    await eventually(() => s.runs >= 2, 30_000);
    const got = await answer;
    // Its answer reached the caller, unless the machine was too slow for the 250 ms kept before the deadline.
    if (got instanceof DomainError) expect(got.reason).toBe("SERVICE_UNAVAILABLE");
    else expect((got as { run: number }).run).toBeGreaterThan(1);
  } finally {
    s.release();
  }
});

test("requests without a call id are never taken for copies of each other", async () => {
  const s = await served("copiestest.anonymous", () => true, (run) => ({ run, callId: "-" }));
  const data = new TextEncoder().encode(JSON.stringify({ n: 1 }));
  const replies = Promise.all([1, 2].map(() => nc.request(s.rpc.subject, data, { timeout: 30_000 })));
  // Both run at once, neither given the other's reply.
  await eventually(() => s.runs === 2, 30_000);
  s.release();
  expect((await replies).map((m) => (JSON.parse(new TextDecoder().decode(m.data)) as { data: { run: number } }).data.run).sort()).toEqual([1, 2]);
});
