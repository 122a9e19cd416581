import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { jetstreamManager } from "@nats-io/jetstream";
import { PAYMENTS_STREAM } from "@payaccept/contracts";
import { findNatsServer, waitForPort } from "../infra/launcher/nats-server.ts";
import { ServiceProcess } from "../infra/launcher/supervisor.ts";
import { RECEIPTS_DURABLE } from "../services/receipts/src/event-consumer.ts";
import { eventually, freePort, READY_WAIT_MS, Stack, STACK_START_MS } from "./harness/stack.ts";

/**
 * A service started while JetStream does not answer its start-time calls waits for it instead of
 * ending (docs/nats.md, "At start"). A real nats-server whose configuration refuses the consumer
 * API ($JS.API.CONSUMER.>) to the services' user: the stream calls are answered, every call on a
 * durable fails (at once, where one with no consumer leader yet times out: a failed try either way). The receipts service, whose
 * start makes its durable (ensureDurable) after the stream, is started against it; then the
 * configuration is reloaded (SIGHUP) with the API allowed, as a leader that turns up.
 */
const config = (consumerApi: "refused" | "allowed", storeDir: string) => `
jetstream { store_dir: "${storeDir}" }
authorization {
  users = [ { user: svc${consumerApi === "refused" ? ', permissions: { publish: { deny: ["$JS.API.CONSUMER.>"] } }' : ""} } ]
}
no_auth_user: svc
`;

const natsDir = mkdtempSync(join(tmpdir(), "payaccept-slow-js-"));
const confFile = join(natsDir, "nats.conf");
const storeDir = join(natsDir, "jetstream");
let nats: Subprocess;
let stack: Stack;

beforeAll(async () => {
  const port = await freePort();
  writeFileSync(confFile, config("refused", storeDir));
  const log = Bun.file(join(natsDir, "nats.log"));
  nats = Bun.spawn([findNatsServer(), "-c", confFile, "-a", "127.0.0.1", "-p", String(port)], { stdout: log, stderr: log });
  await waitForPort(port, 10_000);
  // The stack without services of its own (its data directory, environment and log reading), on this nats-server.
  stack = await Stack.start({ services: [], natsUrl: `nats://127.0.0.1:${port}` });
}, STACK_START_MS);

afterAll(async () => {
  await stack?.stop();
  nats?.kill("SIGTERM");
  await nats?.exited;
  if (!process.env.KEEP_TEST_DATA) rmSync(natsDir, { recursive: true, force: true });
});

test("receipts started while JetStream refuses its durable waits, warning per try, and serves once JetStream answers", async () => {
  const receipts = new ServiceProcess("receipts", stack.env, { restart: false, log: () => {}, output: join(stack.dataDir, "logs", "receipts.log"), readyWaitMs: READY_WAIT_MS });
  stack.services.set("receipts", receipts);
  receipts.start();

  // Several failed tries of the durable, each a warning naming it, and the process still there.
  const exited = receipts.proc!.exited.then((code) => Promise.reject(new Error(`receipts ended (${code}):\n${stack.log("receipts").slice(-2000)}`)));
  // Handled here too: the stack's stop ends the process after the race is settled.
  exited.catch(() => {});
  const tries = await Promise.race([
    eventually(() => {
      const lines = stack.logLines("receipts").filter((l) => l.call === `durable ${RECEIPTS_DURABLE} of ${PAYMENTS_STREAM}`);
      return lines.length >= 3 && lines;
    }, 60_000),
    exited,
  ]);
  expect(tries.every((l) => l.level === 40 && l.msg === "JetStream call at start failed; trying again")).toBe(true);
  expect(tries.map((l) => l.failures)).toEqual(tries.map((_, i) => i + 1));
  expect(receipts.proc!.exitCode).toBeNull();
  expect(stack.logLines("receipts").some((l) => (l.level as number) >= 50)).toBe(false);

  // JetStream answers: the same process makes its durable and serves.
  writeFileSync(confFile, config("allowed", storeDir));
  nats.kill("SIGHUP");
  await receipts.waitReady();
  expect(receipts.proc!.exitCode).toBeNull();
  const ready = (await (await fetch(`${receipts.url}/readyz`)).json()) as { checks: Record<string, boolean> };
  expect(ready.checks.streamEvents).toBe(true);
  const jsm = await jetstreamManager(stack.nc);
  const durable = await jsm.consumers.info(PAYMENTS_STREAM, RECEIPTS_DURABLE);
  expect(durable.config.ack_policy).toBe("explicit");
}, READY_WAIT_MS + 90_000);
