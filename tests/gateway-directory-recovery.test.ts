import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { rpcs } from "@payaccept/contracts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";

setDefaultTimeout(90_000);

let stack: Stack;
beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "payments", "gateway"] });
}, STACK_START_MS);
afterAll(() => stack.stop());

const list = (key: string) => stack.api(key, "/v1/payments").then((r) => r.status);

test("a running gateway follows the directory after NATS comes back without its store", async () => {
  const a = await stack.createShop({ name: "Kept" });
  const b = await stack.createShop({ name: "Deactivated after the wipe" });
  expect(await list(a.apiKey)).toBe(200);
  expect(await list(b.apiKey)).toBe(200);

  await stack.nats.stop();
  rmSync(join(stack.dataDir, "jetstream"), { recursive: true, force: true });
  await stack.startNats();

  // the directory republishes; the gateway's copy is rebuilt from the new server
  await eventually(async () => (await list(a.apiKey)) === 200, 30_000, 200);

  // a change made after the wipe has low revisions again and must still reach the gateway
  await eventually(() => stack.call(rpcs.directory.setActive, { shopId: b.shopId, active: false }).then(() => true), 20_000, 200);
  await eventually(async () => (await list(b.apiKey)) === 401, 5_000, 100);
  expect(await list(a.apiKey)).toBe(200);
});
