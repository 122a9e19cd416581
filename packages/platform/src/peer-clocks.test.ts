import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "@nats-io/transport-node";
import { z } from "zod";
import { startNatsServer, type NatsProcess } from "../../../infra/launcher/nats-server.ts";
import { freePort, testLog as log } from "../../../tests/harness/stack.ts";
import { call, connectBus, followIntroductions, introduceInReplies, serve } from "./bus.ts";

/** A real nats-server and two processes' connections: one answers an rpc and introduces itself, the other calls it. */
const ping = { subject: "test.clocks.ping", request: z.object({}), response: z.object({ ok: z.boolean() }), idempotent: true };

let dir: string;
let nats: NatsProcess;
let responder: NatsConnection;
let caller: NatsConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "peer-clocks-"));
  nats = await startNatsServer({ port: await freePort(), dataDir: dir });
  responder = await connectBus(nats.url, "responder", log);
  caller = await connectBus(nats.url, "caller", log);
  introduceInReplies(responder, "Payaccept-Test-Source", "r-1");
  serve(responder, ping, () => ({ ok: true }), { queue: "test", log });
  await responder.flush();
});
afterAll(async () => {
  await caller?.close();
  await responder?.close();
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("every follower of a connection's introductions is told of a reply that introduces its responder, not only the last one added", async () => {
  const heard: string[] = [];
  followIntroductions(caller, (subject, headers) => heard.push(`first ${subject} ${headers.get("Payaccept-Test-Source")}`));
  followIntroductions(caller, (subject, headers) => heard.push(`second ${subject} ${headers.get("Payaccept-Test-Source")}`));
  // The first reply to a new caller introduces its responder.
  expect(await call(caller, ping, {}, 5_000)).toEqual({ ok: true });
  expect(heard).toEqual([`first ${ping.subject} r-1`, `second ${ping.subject} r-1`]);
});
