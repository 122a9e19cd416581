import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, headers, type NatsConnection } from "@nats-io/transport-node";
import type { Rpc } from "@payaccept/contracts";
import { call, CLOCK_HEADER, createLogger, DEADLINE_HEADER, encodeJson, registry, serve, watchClocks, type PeerClocks } from "@payaccept/platform";
import { z } from "zod";
import { startNatsServer, type NatsProcess } from "../infra/launcher/nats-server.ts";
import { freePort } from "./harness/stack.ts";

/**
 * The bus between processes whose clocks differ (issue 20), on one real nats-server: each side of
 * a call has a wall clock of its own (PeerClocks' `wall`, as libfaketime gives a whole process in
 * tests/clock-skew.test.ts). A call is served whatever the offset, and a request that reaches its
 * responder after its caller gave up (by the caller's clock: it sat in a frozen node's buffers) is
 * still dropped, whichever way the clocks differ, including from a caller never heard of before.
 */
const echo: Rpc<z.ZodObject<{ n: z.ZodNumber }>, z.ZodObject<{ n: z.ZodNumber }>> = {
  subject: "skewtest.echo",
  request: z.object({ n: z.number() }),
  response: z.object({ n: z.number() }),
  idempotent: false,
};

type Line = { level: number; msg: string; [k: string]: unknown };
/** A logger whose lines the test reads. */
function capturingLogger(name: string) {
  const lines: Line[] = [];
  const log = createLogger(name, "info", { write: (s: string) => void lines.push(JSON.parse(s)) });
  return { log, lines };
}

let nats: NatsProcess;
const closers: (() => Promise<unknown>)[] = [];
let responder: { nc: NatsConnection; clocks: PeerClocks; lines: Line[]; handled: number[] };

beforeAll(async () => {
  nats = await startNatsServer({ port: await freePort(), dataDir: mkdtempSync(join(tmpdir(), "skew-test-")) });
  const nc = await connect({ servers: nats.url });
  closers.push(() => nc.close());
  const { log, lines } = capturingLogger("responder");
  const clocks = await watchClocks(nc, "responder", log, 500);
  const handled: number[] = [];
  serve(nc, echo, (req) => (handled.push(req.n), req), { queue: "t", log });
  await nc.flush();
  responder = { nc, clocks, lines, handled };
});
afterAll(async () => {
  for (const close of closers) await close();
  await nats?.stop();
});

/** A caller process whose wall clock is `offsetMs` off the responder's. */
async function callerOff(offsetMs: number, name = `caller${offsetMs}`) {
  const nc = await connect({ servers: nats.url });
  closers.push(() => nc.close());
  const { log, lines } = capturingLogger(name);
  const clocks = await watchClocks(nc, name, log, 500, () => Date.now() + offsetMs);
  return { nc, clocks, lines };
}

const gauge = async (peer: string) => (await registry.getSingleMetric("clock_offset_seconds")?.get())?.values.find((v) => v.labels.peer === peer)?.value;
/** Waits (bounded) until the responder has dropped `count` requests as expired in all. */
async function expiredReaches(count: number): Promise<number> {
  for (let i = 0; i < 60 && (await expired()) < count; i++) await Bun.sleep(50);
  return expired();
}
const expired = async () => (await registry.getSingleMetric("nats_rpc_handled_total")?.get())?.values.find((v) => v.labels.subject === echo.subject && v.labels.outcome === "expired")?.value ?? 0;

let n = 0;
/**
 * A request as it reaches the responder after sitting `heldMs` in a node: the caller's headers
 * made at sending, its deadline (the caller's clock + 500 ms) passed by the time it arrives.
 */
async function heldRequest(caller: { nc: NatsConnection; clocks: PeerClocks }, heldMs: number): Promise<number> {
  const sentAt = caller.clocks.wall() - heldMs;
  const h = headers();
  h.set(DEADLINE_HEADER, String(sentAt + 500));
  h.set(CLOCK_HEADER, `${caller.clocks.id} ${sentAt}`);
  const id = ++n;
  caller.nc.publish(echo.subject, encodeJson({ n: id }), { headers: h, reply: "_INBOX.held" });
  await caller.nc.flush();
  return id;
}

describe.each([-60_000, -5_000, 5_000, 60_000])("a caller whose clock is %d ms off the responder's", (offsetMs) => {
  test("is served on every call, sees the offset, and both sides measure it and warn naming the other", async () => {
    const caller = await callerOff(offsetMs);
    for (let i = 0; i < 5; i++) expect((await call(caller.nc, echo, { n: 1000 + i }, 2_000)).n).toBe(1000 + i);
    // Each side's estimate is off the truth by at most half a round trip: milliseconds on a quiet
    // machine, tens of them on a loaded one; half a second still tells the offsets apart.
    expect(Math.abs((await gauge(caller.clocks.label))! - offsetMs / 1000)).toBeLessThan(0.5);
    expect(Math.abs((await gauge(responder.clocks.label))! + offsetMs / 1000)).toBeLessThan(0.5);
    // The warning carries the estimate of its moment, within the same half second (closeTo's 0 digits).
    const warned = (lines: Line[], peer: string) => lines.find((l) => l.level === 40 && l.peer === peer);
    expect(warned(responder.lines, caller.clocks.label)).toMatchObject({ offsetSeconds: expect.closeTo(offsetMs / 1000, 0) });
    expect(warned(caller.lines, responder.clocks.label)).toMatchObject({ offsetSeconds: expect.closeTo(-offsetMs / 1000, 0) });
  });

  test("a request that arrives after its caller's deadline on the caller's clock is dropped, known caller or not", async () => {
    for (const known of [true, false]) {
      const caller = await callerOff(offsetMs, `held${offsetMs}-${known}`);
      if (known) await call(caller.nc, echo, { n: ++n }, 2_000);
      const before = await expired();
      const id = await heldRequest(caller, 2_000);
      // A request sent after it, on time, is acted on: the late one had its turn before it.
      const next = ++n;
      expect((await call(caller.nc, echo, { n: next }, 2_000)).n).toBe(next);
      expect(await expiredReaches(before + 1)).toBe(before + 1);
      expect(responder.handled).not.toContain(id);
      const line = responder.lines.findLast((l) => l.msg.startsWith("request arrived after its caller's deadline"));
      expect(line).toMatchObject({ caller: caller.clocks.label });
    }
  });
});

test("a caller whose clock is stepped after its offset was measured is still served, and its held requests still dropped", async () => {
  let step = 0;
  const nc = await connect({ servers: nats.url });
  closers.push(() => nc.close());
  const clocks = await watchClocks(nc, "stepped", createLogger("stepped", "silent"), 500, () => Date.now() + step);
  const caller = { nc, clocks };
  expect((await call(nc, echo, { n: ++n }, 2_000)).n).toBe(n);
  for (const to of [-20_000, 20_000, 0]) {
    // Bounds measured within the last second are trusted when a request looks late (a burst of
    // held requests costs one probe a second): a step right after a probe costs the rest of that second.
    await Bun.sleep(1_100);
    step = to;
    expect((await call(nc, echo, { n: ++n }, 2_000)).n).toBe(n);
    const before = await expired();
    const id = await heldRequest(caller, 2_000);
    expect(await expiredReaches(before + 1)).toBe(before + 1);
    expect(responder.handled).not.toContain(id);
  }
});

test("a request from a caller that is gone (it cannot be asked its time) is dropped, not acted on", async () => {
  const caller = await callerOff(30_000, "gone");
  const sentAt = caller.clocks.wall();
  const h = headers();
  h.set(DEADLINE_HEADER, String(sentAt + 60_000));
  h.set(CLOCK_HEADER, `${caller.clocks.id} ${sentAt}`);
  await caller.nc.close();
  const before = await expired();
  const id = ++n;
  responder.nc.publish(echo.subject, encodeJson({ n: id }), { headers: h });
  expect(await expiredReaches(before + 1)).toBe(before + 1);
  expect(responder.handled).not.toContain(id);
});
