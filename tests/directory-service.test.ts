import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Kvm, type KV } from "@nats-io/kv";
import { apiKeyKvKey, rpcs, shopKvKey, ShopRecord } from "@payaccept/contracts";
import { sha256Hex } from "@payaccept/platform";
import type { ServiceProcess } from "../infra/launcher/supervisor.ts";
import { ENGINES } from "./harness/engines.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";

// Real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(90_000);

/**
 * The directory as its own service: no dashboard in this stack at all. Shops are made and keys
 * rotated with the admin CLI, the gateway takes the keys from the bucket, and two replicas of the
 * directory sharing one store keep the bucket equal to it however their writes interleave.
 */
let stack: Stack;
let kv: KV;
describe.each(ENGINES)("on %s", (engine) => {
  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "payments", "gateway"], postgres: engine === "postgres" });
    kv = await new Kvm(stack.nc).open("directory");
  }, STACK_START_MS);
  afterAll(() => stack?.stop());

  /** A body that fails validation: a 400 proves the key was accepted. */
  const keyAccepted = async (apiKey: string) => (await stack.api(apiKey, "/v1/payments", { method: "POST", json: { orderId: "", amountKopecks: 1 } })).status === 400;
  const keyRefused = async (apiKey: string) => (await stack.api(apiKey, "/v1/payments", { method: "POST", json: { orderId: "", amountKopecks: 1 } })).status === 401;
  const adminJson = async (...args: string[]) => {
    const r = await stack.admin([...args, "--json"]);
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout);
  };

  describe("with no dashboard running", () => {
    test("the admin CLI creates a shop and rotates its key; the gateway takes the new key and refuses the old", async () => {
      const created = await adminJson("shop:create", "--name", "No dashboard", "--sandbox");
      await eventually(() => keyAccepted(created.apiKey));
      const rotated = await adminJson("key:rotate", "--shop", created.shopId);
      expect(rotated.apiKey).not.toBe(created.apiKey);
      await eventually(() => keyAccepted(rotated.apiKey));
      await eventually(() => keyRefused(created.apiKey));
    });

    test("it has its own port with /healthz, /readyz and /metrics", async () => {
      const url = stack.url("directory");
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      expect(await (await fetch(`${url}/metrics`)).text()).toContain('nats_rpc_handled_total{subject="directory.v1.shop.create",outcome="ok"}');
    });
  });

  describe("two replicas", () => {
    let second: ServiceProcess;
    beforeAll(async () => {
      second = await stack.addReplica("directory");
    }, STACK_START_MS);

    const handled = async (url: string, subject: string) => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return Number(new RegExp(`nats_rpc_handled_total\\{subject="${subject.replaceAll(".", "\\.")}",outcome="ok"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    };

    test("concurrent changes of one shop through both replicas leave the bucket equal to the store", async () => {
      const shop = await stack.createShop({ name: "Contended", sandbox: true });
      const before = [await handled(stack.url("directory"), "directory.v1.shop.update"), await handled(second.url, "directory.v1.shop.update")];
      const changes = Array.from({ length: 30 }, (_, i) =>
        i % 3 === 0
          ? stack.call(rpcs.directory.setActive, { shopId: shop.shopId, active: i % 2 === 0 })
          : stack.call(rpcs.directory.updateShop, { shopId: shop.shopId, name: `Name ${i}`, ...(i % 5 === 0 ? { methods: ["CARD" as const] } : {}) }),
      );
      const rotations = Array.from({ length: 8 }, () => stack.call(rpcs.directory.rotateKey, { shopId: shop.shopId }).catch(() => undefined));
      // A change whose publish is not confirmed in time (a busy machine) is saved and answered
      // DIRECTORY_PUBLISH_PENDING; the publisher sends it on, so the bucket still ends as the store.
      await Promise.all(changes.map((c) => c.catch((e: { reason?: string }) => {
        if (e.reason !== "DIRECTORY_PUBLISH_PENDING") throw e;
      })));
      const issued = (await Promise.all(rotations)).flatMap((r) => (r ? [r.apiKey] : []));
      // Both replicas took part (30 requests over a queue group of two).
      const after = [await handled(stack.url("directory"), "directory.v1.shop.update"), await handled(second.url, "directory.v1.shop.update")];
      expect(after[0]! - before[0]!).toBeGreaterThan(0);
      expect(after[1]! - before[1]!).toBeGreaterThan(0);

      // The store's view (through either replica) and the bucket agree on every field.
      const stored = await stack.call(rpcs.directory.getShop, { shopId: shop.shopId, withSecret: true });
      const { id, createdAt: _c, updatedAt, ...fields } = stored.shop;
      const expected = { ...fields, shopId: id, updatedAt: new Date(updatedAt).toISOString() } as ShopRecord;
      const published = await eventually(async () => {
        const record = ShopRecord.parse((await kv.get(shopKvKey(shop.shopId)))!.json());
        return Bun.deepEquals(record, expected) && record;
      }, 30_000);
      expect(published).toEqual(expected);

      // Exactly one key is live, in the store and in the bucket: the one the store shows.
      const live = [];
      for (const apiKey of [shop.apiKey, ...issued]) if ((await kv.get(apiKeyKvKey(sha256Hex(apiKey))))?.operation === "PUT") live.push(apiKey);
      expect(live).toHaveLength(1);
      expect(live[0]!.startsWith(stored.key!.displayPrefix)).toBe(true);
    });

    test("a replica that stops leaves the other serving, and the gateway takes its keys", async () => {
      await second.stop("SIGTERM");
      const created = await adminJson("shop:create", "--name", "One replica left", "--sandbox");
      await eventually(() => keyAccepted(created.apiKey));
      second.start();
      await second.waitReady();
      const rotated = await adminJson("key:rotate", "--shop", created.shopId);
      await eventually(() => keyAccepted(rotated.apiKey));
    });
  });
});
