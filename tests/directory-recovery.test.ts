import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Kvm } from "@nats-io/kv";
import { apiKeyKvKey, rpcs, shopKvKey } from "@payaccept/contracts";
import { sha256Hex } from "@payaccept/platform";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";

// Each test starts real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(60_000);

let stack: Stack;
beforeAll(async () => {
  stack = await Stack.start({ services: ["directory"] });
}, STACK_START_MS);
afterAll(() => stack.stop());

const entry = async (key: string) => {
  const kv = await new Kvm(stack.nc).open("directory");
  const e = await kv.get(key);
  return e?.operation === "PUT" ? e.string() : undefined;
};

test("a NATS server that comes back without its store gets the whole directory again", async () => {
  const created = await stack.createShop({ name: "Survivor" });
  const rotated = await stack.call(rpcs.directory.rotateKey, { shopId: created.shopId });

  await stack.nats.stop();
  rmSync(join(stack.dataDir, "jetstream"), { recursive: true, force: true });
  await stack.startNats();

  await eventually(() => entry(shopKvKey(created.shopId)), 20000);
  expect(await eventually(() => entry(apiKeyKvKey(sha256Hex(rotated.apiKey))))).toContain(created.shopId);
  expect(await entry(apiKeyKvKey(sha256Hex(created.apiKey)))).toBeUndefined();
});

test("at start the directory republishes every shop and key and removes entries it does not own", async () => {
  const created = await stack.createShop({ name: "Restarted" });
  const kv = await new Kvm(stack.nc).open("directory");
  const forged = apiKeyKvKey(sha256Hex("pk_live_forged"));
  await kv.put(forged, JSON.stringify({ shopId: created.shopId, keyId: "forged" }));
  await kv.delete(shopKvKey(created.shopId));

  await stack.restart("directory");

  expect(await entry(forged)).toBeUndefined();
  expect(await entry(shopKvKey(created.shopId))).toContain("Restarted");
  expect(await entry(apiKeyKvKey(sha256Hex(created.apiKey)))).toContain(created.shopId);
});
