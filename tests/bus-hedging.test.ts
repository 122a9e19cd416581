import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { DomainError, type Rpc } from "@payaccept/contracts";
import { call, callIdOf, createLogger, registry, repeatKey, serve } from "@payaccept/platform";
import { z } from "zod";
import { startNatsServer, type NatsProcess } from "../infra/launcher/nats-server.ts";
import { eventually, freePort } from "./harness/stack.ts";

/**
 * What a hung NATS node does to a queue group, on one real nats-server: a member that takes
 * requests and never answers (the subscription a service left on the frozen node) beside a live
 * one. nats-server picks a member at random for each request.
 */
const reply = z.object({ key: z.string() });
const read: Rpc<z.ZodObject<{ n: z.ZodNumber }>, typeof reply> = { subject: "hedgetest.read", request: z.object({ n: z.number() }), response: reply, idempotent: true };
const write: Rpc<z.ZodObject<{ n: z.ZodNumber }>, typeof reply> = { ...read, subject: "hedgetest.write", idempotent: false };

const CALLS = 40;
/** Room for ~30 copies (one each NATS_HEDGE_AFTER, 300 ms): a call that misses all of them has odds 2^-30. */
const READ_TIMEOUT_MS = 10_000;
/** What a swallowed call that is not copied waits before its 503. */
const WRITE_TIMEOUT_MS = 1_500;

let nats: NatsProcess;
let nc: NatsConnection;
/** Call ids each member was given, per subject. */
const live = new Map<string, string[]>();
const hole = new Map<string, string[]>();
const seen = (m: Map<string, string[]>, subject: string, id: string | undefined) => m.set(subject, [...(m.get(subject) ?? []), id ?? "(none)"]);

beforeAll(async () => {
  nats = await startNatsServer({ port: await freePort(), dataDir: mkdtempSync(join(tmpdir(), "hedge-test-")) });
  nc = await connect({ servers: nats.url });
  const log = createLogger("hedge-test", "silent");
  for (const rpc of [read, write]) {
    serve(nc, rpc, (_req, msg) => {
      seen(live, rpc.subject, callIdOf(msg));
      return { key: repeatKey(undefined, msg) ?? "(none)" };
    }, { queue: "t", log });
    nc.subscribe(rpc.subject, { queue: "t", callback: (_e, msg) => void seen(hole, rpc.subject, callIdOf(msg)) });
  }
  await nc.flush();
});
afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

const copiesSent = async (subject: string) =>
  ((await registry.getSingleMetric("nats_request_copies_total")?.get())?.values ?? []).filter((v) => v.labels.subject === subject).reduce((a, v) => a + v.value, 0);

test("an idempotent call that fell into the silent member is answered by a copy of it, with the same call id", async () => {
  const answers = await Promise.all(Array.from({ length: CALLS }, (_, n) => call(nc, read, { n }, READ_TIMEOUT_MS)));
  expect(answers).toHaveLength(CALLS);
  const swallowed = hole.get(read.subject) ?? [];
  // With a fair pick, every one of 40 calls missing the silent member has odds 2^-40.
  expect(swallowed.length).toBeGreaterThan(0);
  expect(await copiesSent(read.subject)).toBeGreaterThanOrEqual(swallowed.length);
  // Every call that went unanswered was answered under its own id: the copy carried it.
  const answered = new Set(live.get(read.subject));
  for (const id of swallowed) expect(answered.has(id)).toBe(true);
  // repeatKey: the call id is the key a write without one of its own is deduplicated by.
  expect(answers.map((a) => a.key)).toEqual(expect.arrayContaining([...answered].map((id) => `call:${id}`)));
});

test("a call that is not idempotent is never copied: the swallowed ones fail with 503", async () => {
  const outcomes = await Promise.all(Array.from({ length: CALLS }, (_, n) => call(nc, write, { n }, WRITE_TIMEOUT_MS).then(() => "ok", (e: unknown) => e)));
  const failed = outcomes.filter((o) => o !== "ok");
  expect(failed.length).toBe(hole.get(write.subject)?.length ?? 0);
  expect(failed.length).toBeGreaterThan(0);
  for (const e of failed) expect(e).toMatchObject({ code: "UNAVAILABLE", reason: "SERVICE_UNAVAILABLE" } satisfies Partial<DomainError>);
  expect(await copiesSent(write.subject)).toBe(0);
  // Each call reached one member once.
  expect((live.get(write.subject)?.length ?? 0) + failed.length).toBe(CALLS);
});

test("an idempotent call nobody serves still fails at once, not at its deadline", async () => {
  const nobody = { ...read, subject: "hedgetest.nobody" };
  // A minute's timeout: waiting for it would exceed the test's own 5 s limit.
  const err = await call(nc, nobody, { n: 1 }, 60_000).catch((e: unknown) => e);
  expect(err).toMatchObject({ reason: "SERVICE_UNAVAILABLE" });
}, 5_000);

test("copies of a call that reach a responder still handling it get its answer; the handler runs once", async () => {
  const slow = { ...read, subject: "hedgetest.slow" };
  const arrived = new Map<string, number>();
  const ran: string[] = [];
  // Every message of the subject, copies included (no queue group: it sees them all).
  nc.subscribe(slow.subject, { callback: (_e, msg) => void arrived.set(callIdOf(msg)!, (arrived.get(callIdOf(msg)!) ?? 0) + 1) });
  serve(nc, slow, async (_req, msg) => {
    const id = callIdOf(msg)!;
    ran.push(id);
    // Busy (a row lock, say) until two copies of this call have come in.
    await eventually(() => (arrived.get(id) ?? 0) >= 3, 8_000, 20);
    return { key: repeatKey(undefined, msg)! };
  }, { queue: "slow", log: createLogger("hedge-test", "silent") });
  await nc.flush();
  const answer = await call(nc, slow, { n: 1 }, READ_TIMEOUT_MS);
  const id = [...arrived.keys()][0]!;
  expect(answer).toEqual({ key: `call:${id}` });
  expect(arrived.get(id)).toBeGreaterThanOrEqual(3);
  expect(ran).toEqual([id]);
});
