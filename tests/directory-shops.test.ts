import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Kvm, type KV } from "@nats-io/kv";
import { apiKeyKvKey, DEFAULT_TARIFF, DomainError, rpcs, shopKvKey, ShopRecord } from "@payaccept/contracts";
import { sha256Hex } from "@payaccept/platform";
import { ENGINES } from "./harness/engines.ts";
import { Stack, STACK_START_MS } from "./harness/stack.ts";

// Each test starts real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(60_000);

let stack: Stack;
let kv: KV;

describe.each(ENGINES)("the directory on %s", (engine) => {
  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory"], env: { WEBHOOK_ALLOW_PRIVATE: "0" }, postgres: engine === "postgres" });
    kv = await new Kvm(stack.nc).open("directory");
  }, STACK_START_MS);
  afterAll(() => stack.stop());

  const shopInKv = async (shopId: string) => {
    const e = await kv.get(shopKvKey(shopId));
    return e && e.operation === "PUT" ? ShopRecord.parse(e.json()) : undefined;
  };
  const keyInKv = async (apiKey: string) => {
    const e = await kv.get(apiKeyKvKey(sha256Hex(apiKey)));
    return e && e.operation === "PUT" ? e.json<{ shopId: string; keyId: string }>() : undefined;
  };
  const rpcError = (p: Promise<unknown>) => p.then(() => { throw new Error("expected the call to fail"); }, (e: unknown) => e as DomainError);

  describe("createShop", () => {
    test("issues a live key shown once, stores only its hash, and publishes shop and key", async () => {
      const created = await stack.createShop({ name: "  Coffee  ", webhookUrl: "https://shop.example.com/hooks" });
      expect(created.apiKey).toMatch(/^pk_live_[A-Za-z0-9_-]{43}$/);
      expect(created.signingSecret.length).toBeGreaterThanOrEqual(40);

      const shop = await shopInKv(created.shopId);
      expect(shop).toMatchObject({
        shopId: created.shopId,
        accountId: created.accountId,
        name: "Coffee",
        active: true,
        sandbox: false,
        methods: ["SBP", "CARD"],
        tariff: DEFAULT_TARIFF,
        webhookUrl: "https://shop.example.com/hooks",
        signingSecret: created.signingSecret,
        successUrl: null,
        failUrl: null,
      });
      expect((await keyInKv(created.apiKey))?.shopId).toBe(created.shopId);

      const stored = await stack.storedText("directory", "directory.db");
      expect(stored).toContain(sha256Hex(created.apiKey));
      expect(stored).not.toContain(created.apiKey);
    });

    test("a sandbox shop gets a test key", async () => {
      const created = await stack.createShop({ name: "Sandbox", sandbox: true, methods: ["CARD"] });
      expect(created.apiKey).toMatch(/^pk_test_/);
      expect(await shopInKv(created.shopId)).toMatchObject({ sandbox: true, methods: ["CARD"] });
    });

    test("a shop joins an existing account; an unknown account is refused", async () => {
      const first = await stack.createShop({ name: "First" });
      const second = await stack.createShop({ name: "Second", accountId: first.accountId });
      expect(second.accountId).toBe(first.accountId);
      expect(second.shopId).not.toBe(first.shopId);
      const err = await rpcError(stack.createShop({ name: "Orphan", accountId: "no-such-account" }));
      expect(err.code).toBe("NOT_FOUND");
    });

    test("webhook URL must be https and public for a live shop; every problem is listed", async () => {
      const err = await rpcError(stack.createShop({ name: "Bad hook", webhookUrl: "http://user:pw@127.0.0.1:8080/x" }));
      expect(err.code).toBe("BAD_REQUEST");
      expect(err.messages).toEqual([
        "webhookUrl: must use https",
        "webhookUrl: must not contain credentials",
        "webhookUrl: must point to a public address, not a private network",
      ]);
    });

    test("a sandbox shop may use plain http but still only a public address", async () => {
      const ok = await stack.createShop({ name: "Tunnel", sandbox: true, webhookUrl: "http://abc.tunnel.example.net/h" });
      expect((await shopInKv(ok.shopId))?.webhookUrl).toBe("http://abc.tunnel.example.net/h");
      const err = await rpcError(stack.createShop({ name: "Internal", sandbox: true, webhookUrl: "http://10.0.0.8/h" }));
      expect(err.messages).toEqual(["webhookUrl: must point to a public address, not a private network"]);
    });
  });

  describe("host names with empty labels (`localhost..`) are private too", () => {
    const names = ["localhost..", "printer.local..", "foo.internal.."];

    test.each(names)("updateShop refuses http://%s", async (host) => {
      const created = await stack.createShop({ name: "Dots", sandbox: true });
      const err = await rpcError(stack.call(rpcs.directory.updateShop, { shopId: created.shopId, webhookUrl: `http://${host}:8080/hook` }));
      expect(err.messages).toEqual(["webhookUrl: must point to a public address, not a private network"]);
      expect((await shopInKv(created.shopId))?.webhookUrl).toBeNull();
    });

    test("the admin CLI's shop:create refuses it and creates nothing", async () => {
      const r = await stack.admin(["shop:create", "--name", "Dots", "--sandbox", "--webhook-url", "http://localhost..:8080/hook", "--json"]);
      expect(r.code).toBe(1);
      // With --json the refusal is one JSON document on stdout.
      expect(r.stderr).toBe("");
      expect(JSON.parse(r.stdout).error.message).toContain("must point to a public address");
    });
  });

  describe("changes are published", () => {
    test("setActive flips the shop's flag in KV and leaves its key in place", async () => {
      const created = await stack.createShop();
      const view = await stack.call(rpcs.directory.setActive, { shopId: created.shopId, active: false });
      expect(view.active).toBe(false);
      expect(view).not.toHaveProperty("signingSecret");
      expect((await shopInKv(created.shopId))?.active).toBe(false);
      expect(await keyInKv(created.apiKey)).toBeDefined();
      await stack.call(rpcs.directory.setActive, { shopId: created.shopId, active: true });
      expect((await shopInKv(created.shopId))?.active).toBe(true);
    });

    test("rotateKey publishes the new key and deletes the old one", async () => {
      const created = await stack.createShop();
      const rotated = await stack.call(rpcs.directory.rotateKey, { shopId: created.shopId });
      expect(rotated.apiKey).toMatch(/^pk_live_/);
      expect(rotated.apiKey).not.toBe(created.apiKey);
      expect(await keyInKv(created.apiKey)).toBeUndefined();
      expect((await keyInKv(rotated.apiKey))?.shopId).toBe(created.shopId);
    });

    test("keys are issued only for an active shop", async () => {
      const created = await stack.createShop();
      await stack.call(rpcs.directory.setActive, { shopId: created.shopId, active: false });
      const err = await rpcError(stack.call(rpcs.directory.rotateKey, { shopId: created.shopId }));
      expect(err.code).toBe("CONFLICT");
      expect(await keyInKv(created.apiKey)).toBeDefined();
    });

    test("updateShop validates every field at once and publishes the result", async () => {
      const created = await stack.createShop();
      const err = await rpcError(
        stack.call(rpcs.directory.updateShop, {
          shopId: created.shopId,
          name: "   ",
          successUrl: "http://shop.example.com/ok",
          failUrl: "ftp://x",
          webhookUrl: "https://localhost/h",
        }),
      );
      expect(err.code).toBe("BAD_REQUEST");
      expect(err.messages).toHaveLength(4);

      const tariff = { SBP: { percentBp: 50, fixedKopecks: 100, minKopecks: 0 }, CARD: DEFAULT_TARIFF.CARD };
      const view = await stack.call(rpcs.directory.updateShop, {
        shopId: created.shopId,
        methods: ["CARD", "SBP", "CARD"],
        successUrl: "https://t.me/shop_bot",
        failUrl: "tg://resolve?domain=shop_bot",
        tariff,
      });
      expect(view).toMatchObject({ methods: ["SBP", "CARD"], successUrl: "https://t.me/shop_bot", failUrl: "tg://resolve?domain=shop_bot" });
      expect(await shopInKv(created.shopId)).toMatchObject({ tariff, successUrl: "https://t.me/shop_bot" });

      await stack.call(rpcs.directory.updateShop, { shopId: created.shopId, successUrl: null, failUrl: "" });
      expect(await shopInKv(created.shopId)).toMatchObject({ successUrl: null, failUrl: null, methods: ["SBP", "CARD"] });
    });

    test("rotateSecret publishes the new signing secret", async () => {
      const created = await stack.createShop();
      const rotated = await stack.call(rpcs.directory.rotateSecret, { shopId: created.shopId });
      expect(rotated.signingSecret).not.toBe(created.signingSecret);
      expect((await shopInKv(created.shopId))?.signingSecret).toBe(rotated.signingSecret);
    });

    test("an unknown shop is NOT_FOUND for every change", async () => {
      const shopId = Bun.randomUUIDv7();
      // Each refusal is caught as soon as it is made: one arriving before the loop reaches it is not unhandled.
      const refusals = [
        stack.call(rpcs.directory.setActive, { shopId, active: false }),
        stack.call(rpcs.directory.rotateKey, { shopId }),
        stack.call(rpcs.directory.updateShop, { shopId, name: "x" }),
        stack.call(rpcs.directory.rotateSecret, { shopId }),
      ].map(rpcError);
      for (const refusal of refusals) expect((await refusal).code).toBe("NOT_FOUND");
    });
  });
});
