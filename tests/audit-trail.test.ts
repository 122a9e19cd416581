import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { AUDIT_STREAM, AuditEvent } from "@payaccept/contracts";
import { AuditTrail, connectBus, createLogger } from "@payaccept/platform";
import { startNatsServer, type NatsProcess } from "../infra/launcher/nats-server.ts";
import { eventually, freePort } from "./harness/stack.ts";

setDefaultTimeout(60_000);

/**
 * AuditTrail against a real nats-server: it makes the AUDIT stream when missing, a repeated event
 * (the same id) is one message, and an event recorded while NATS is away is published once it is back.
 */
const log = createLogger("audit-trail-test", "silent");
const dataDir = mkdtempSync(join(tmpdir(), "audit-trail-"));
let nats: NatsProcess | undefined;
afterAll(async () => {
  await nats?.stop();
});

const refund = (id: string) => ({
  id: `refund.created:${id}`,
  action: "refund.created" as const,
  actor: { kind: "apiKey" as const, id: "key-1", label: "pk_test_AbCd", ip: "203.0.113.5" },
  at: Date.parse("2026-11-24T10:00:00Z"),
  accountId: "acc-1",
  shopId: "shop-1",
  target: { type: "refund", id },
  after: { amountKopecks: 5000 },
});

test("the stream is made when missing, a repeat is one message, and an entry recorded while NATS is away arrives after", async () => {
  const port = await freePort();
  nats = await startNatsServer({ port, dataDir });
  const nc = await connectBus(`nats://127.0.0.1:${port}`, "audit-trail-test", log);
  const jsm = await jetstreamManager(nc);
  const messages = async () => (await jsm.streams.info(AUDIT_STREAM)).state.messages;
  const trail = new AuditTrail(nc, log, 1000);

  trail.record(refund("r-1"));
  trail.record(refund("r-1"));
  await trail.settled();
  expect(await messages()).toBe(1);
  const stored = AuditEvent.parse((await jsm.streams.getMessage(AUDIT_STREAM, { seq: 1 }))!.json());
  expect(stored).toMatchObject({ id: "refund.created:r-1", at: "2026-11-24T10:00:00.000Z", actor: { label: "pk_test_AbCd" }, target: { type: "refund", id: "r-1" } });

  await nats.stop();
  trail.record(refund("r-2"));
  nats = await startNatsServer({ port, dataDir });
  await eventually(async () => (await messages()) === 2, 30_000, 200);
  await trail.settled();
  await trail.close();
  await nc.close();
});
