import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, headers, type NatsConnection } from "@nats-io/transport-node";
import { DomainError, type Rpc } from "@payaccept/contracts";
import { actAs, actorOf, call, callForRelay, createLogger, requestIdOf, serve } from "@payaccept/platform";
import { z } from "zod";
import { startNatsServer, type NatsProcess } from "../infra/launcher/nats-server.ts";
import { freePort } from "./harness/stack.ts";

/**
 * callForRelay hands the gateway the reply's data as the responder encoded it, for the HTTP body.
 * Against a real nats-server: what serve() answers, a reply encoded by someone else, error replies
 * and a missing responder.
 */
const echo: Rpc<z.ZodType<{ text: string }>, z.ZodType<{ text: string; items: number[] }>> = {
  subject: "relaytest.echo",
  request: z.object({ text: z.string() }),
  response: z.object({ text: z.string(), items: z.array(z.number()) }),
  idempotent: true,
};
const foreign = { ...echo, subject: "relaytest.foreign" };
const failing = { ...echo, subject: "relaytest.failing" };
const nobody = { ...echo, subject: "relaytest.nobody" };
const whoAsks = { ...echo, subject: "relaytest.request-id" };
const forWhom = { ...echo, subject: "relaytest.actor" };

let nats: NatsProcess;
let nc: NatsConnection;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const headersWith = (name: string, value: string) => {
  const h = headers();
  h.set(name, value);
  return h;
};

beforeAll(async () => {
  nats = await startNatsServer({ port: await freePort(), dataDir: mkdtempSync(join(tmpdir(), "relay-test-")) });
  nc = await connect({ servers: nats.url });
  const log = createLogger("relay-test", "silent");
  serve(nc, echo, (req) => ({ text: `«${req.text}»`, items: [1, 2, 3] }), { queue: "t", log });
  serve(nc, failing, () => {
    throw new DomainError("REFUND_EXCEEDS_AVAILABLE", { neededKopecks: 243_799, availableKopecks: 0, frozenKopecks: 0 });
  }, { queue: "t", log });
  serve(nc, whoAsks, (_req, msg) => ({ text: requestIdOf(msg) ?? "(none)", items: [] }), { queue: "t", log });
  serve(nc, forWhom, (_req, msg) => ({ text: JSON.stringify(actorOf(msg) ?? null), items: [] }), { queue: "t", log });
  // Another responder's envelope, keys in another order.
  nc.subscribe(foreign.subject, { callback: (_e, m) => void m.respond(JSON.stringify({ data: { text: "x", items: [] }, ok: true })) });
  await nc.flush();
});
afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

test("the data of a reply from serve() comes back as its exact JSON, unicode included", async () => {
  const body = await callForRelay(nc, echo, { text: "привет" }, 2000);
  expect(text(body)).toBe(JSON.stringify({ text: "«привет»", items: [1, 2, 3] }));
});

test("a reply encoded some other way is relayed all the same", async () => {
  expect(JSON.parse(text(await callForRelay(nc, foreign, { text: "a" }, 2000)))).toEqual({ text: "x", items: [] });
});

test("an error reply is rebuilt with its transport code, reason and parameters", async () => {
  const err = await callForRelay(nc, failing, { text: "a" }, 2000).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DomainError);
  expect(err).toMatchObject({
    code: "CONFLICT",
    reason: "REFUND_EXCEEDS_AVAILABLE",
    params: { neededKopecks: 243_799, availableKopecks: 0, frozenKopecks: 0 },
  });
});

test("an invalid request is refused by the responder as VALIDATION_FAILED, each issue structured", async () => {
  const err = await callForRelay(nc, echo, { text: 5 as unknown as string }, 2000).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: "BAD_REQUEST", reason: "VALIDATION_FAILED", params: { issues: [{ path: "text", issue: "invalid_type", params: { expected: "string" } }] } });
});

test("no responder is SERVICE_UNAVAILABLE naming the service (the subject's first segment)", async () => {
  const err = await callForRelay(nc, nobody, { text: "a" }, 500).catch((e: unknown) => e);
  expect(err).toMatchObject({ code: "UNAVAILABLE", reason: "SERVICE_UNAVAILABLE", params: { service: nobody.subject.split(".")[0] } });
});

test("the caller's request id reaches the responder in the X-Request-Id header; an insane one is dropped", async () => {
  expect((await call(nc, whoAsks, { text: "a" }, 2000, { requestId: "req-42.a:b" })).text).toBe("req-42.a:b");
  expect(JSON.parse(text(await callForRelay(nc, whoAsks, { text: "a" }, 2000, { requestId: "relayed-7" })))).toMatchObject({ text: "relayed-7" });
  expect((await call(nc, whoAsks, { text: "a" }, 2000)).text).toBe("(none)");
  expect((await call(nc, whoAsks, { text: "a" }, 2000, { requestId: "has a space" })).text).toBe("(none)");
});

test("the actor a call is made for reaches the responder (per call, else the connection's); a malformed one is dropped", async () => {
  const member = { kind: "member" as const, id: "u-1", label: "owner@example.com", ip: "203.0.113.7", userAgent: "Firefox" };
  const actorSeen = async (conn: NatsConnection, actor?: typeof member) => JSON.parse((await call(conn, forWhom, { text: "a" }, 2000, { actor })).text);
  expect(await actorSeen(nc)).toBeNull();
  expect(await actorSeen(nc, member)).toEqual(member);
  const cli = await connect({ servers: nats.url });
  try {
    actAs(cli, { kind: "cli", label: "ops@host-1" });
    expect(await actorSeen(cli)).toEqual({ kind: "cli", label: "ops@host-1" });
    expect(await actorSeen(cli, member)).toEqual(member);
  } finally {
    await cli.close();
  }
  const raw = await nc.request(forWhom.subject, JSON.stringify({ text: "a" }), { timeout: 2000, headers: headersWith("Payaccept-Actor", '{"kind":"god","label":"x"}') });
  expect(JSON.parse(text(raw.data))).toMatchObject({ ok: true, data: { text: "null" } });
});
