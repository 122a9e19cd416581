import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Kvm, type KV } from "@nats-io/kv";
import { apiKeyKvKey, shopKvKey, ShopRecord } from "@payaccept/contracts";
import { sha256Hex } from "@payaccept/platform";
import { Stack, STACK_START_MS } from "./harness/stack.ts";

// Each test starts real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(60_000);

let stack: Stack;
let kv: KV;
beforeAll(async () => {
  stack = await Stack.start({ services: ["directory"] });
  kv = await new Kvm(stack.nc).open("directory");
}, STACK_START_MS);
afterAll(() => stack.stop());

const admin = (...args: string[]) => stack.admin(args);

const shopInKv = async (shopId: string) => ShopRecord.parse((await kv.get(shopKvKey(shopId)))!.json());
const keyPublished = async (apiKey: string) => (await kv.get(apiKeyKvKey(sha256Hex(apiKey))))?.operation === "PUT";

describe("admin shop commands", () => {
  test("shop:create --json prints one JSON object with the credentials", async () => {
    const r = await admin("shop:create", "--name", "CLI shop", "--sandbox", "--methods", "card", "--webhook-url", "http://127.0.0.1:9/h", "--json");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]!);
    expect(Object.keys(created).sort()).toEqual(["accountId", "apiKey", "shopId", "signingSecret"]);
    expect(created.apiKey).toMatch(/^pk_test_/);
    expect(await shopInKv(created.shopId)).toMatchObject({ name: "CLI shop", sandbox: true, methods: ["CARD"], webhookUrl: "http://127.0.0.1:9/h" });
    expect(await keyPublished(created.apiKey)).toBe(true);

    const sibling = JSON.parse((await admin("shop:create", "--name", "Sibling", "--account", created.accountId, "--json")).stdout);
    expect(sibling.accountId).toBe(created.accountId);
    expect(sibling.apiKey).toMatch(/^pk_live_/);
  });

  test("shop:deactivate and shop:activate flip the shop", async () => {
    const { shopId } = await stack.createShop();
    expect((await admin("shop:deactivate", "--shop", shopId)).code).toBe(0);
    expect((await shopInKv(shopId)).active).toBe(false);
    expect((await admin("shop:activate", "--shop", shopId)).code).toBe(0);
    expect((await shopInKv(shopId)).active).toBe(true);
  });

  test("key:rotate --json prints the new key and the old one is gone", async () => {
    const created = await stack.createShop();
    const r = await admin("key:rotate", "--shop", created.shopId, "--json");
    expect(r.code).toBe(0);
    const rotated = JSON.parse(r.stdout);
    expect(rotated.shopId).toBe(created.shopId);
    expect(await keyPublished(rotated.apiKey)).toBe(true);
    expect(await keyPublished(created.apiKey)).toBe(false);
  });

  test("shop:update --saved-method-consent sets how the payment page asks to save a method", async () => {
    const { shopId } = await stack.createShop();
    const r = await admin("shop:update", "--shop", shopId, "--saved-method-consent", "always", "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ shopId, savedMethodConsent: "ALWAYS" });
    expect((await shopInKv(shopId)).savedMethodConsent).toBe("ALWAYS");
    const wrong = await admin("shop:update", "--shop", shopId, "--saved-method-consent", "SOMETIMES");
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toStartWith("--saved-method-consent must be one of ALWAYS, BUYER_CHOICE\n");
  });

  test("shop:update changes only the given settings; an empty URL clears it", async () => {
    const { shopId } = await stack.createShop({ name: "Before", webhookUrl: "https://hooks.example.com/a" });
    const r = await admin("shop:update", "--shop", shopId, "--success-url", "https://shop.example.com/ok", "--fail-url", "t.me/shop_bot", "--methods", "SBP");
    expect(r.code).toBe(0);
    expect(await shopInKv(shopId)).toMatchObject({
      name: "Before",
      webhookUrl: "https://hooks.example.com/a",
      methods: ["SBP"],
      successUrl: "https://shop.example.com/ok",
      failUrl: "t.me/shop_bot",
    });
    expect((await admin("shop:update", "--shop", shopId, "--webhook-url", "", "--success-url", "")).code).toBe(0);
    expect(await shopInKv(shopId)).toMatchObject({ webhookUrl: null, successUrl: null, failUrl: "t.me/shop_bot" });
  });

  test("secret:rotate prints the new signing secret", async () => {
    const created = await stack.createShop();
    const rotated = JSON.parse((await admin("secret:rotate", "--shop", created.shopId, "--json")).stdout);
    expect((await shopInKv(created.shopId)).signingSecret).toBe(rotated.signingSecret);
  });

  test("usage mistakes exit 2 with a one-line reason; service refusals exit 1", async () => {
    const noName = await admin("shop:create");
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain("--name is required");
    const badMethod = await admin("shop:create", "--name", "x", "--methods", "CASH");
    expect(badMethod.code).toBe(2);
    expect(badMethod.stderr).toContain("--methods");
    const nothing = await admin("shop:update", "--shop", "s");
    expect(nothing.code).toBe(2);
    const unknown = await admin("shop:deactivate", "--shop", "no-such-shop");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("NOT_FOUND");
    const invalid = await admin("shop:update", "--shop", (await stack.createShop()).shopId, "--success-url", "http://insecure.example.com");
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain("successUrl");
  });

  test("with --json every error is one JSON document on stdout and nothing on stderr", async () => {
    const asJson = (r: { stdout: string; stderr: string }) => {
      expect(r.stderr).toBe("");
      expect(r.stdout.trim().split("\n")).toHaveLength(1);
      return JSON.parse(r.stdout);
    };
    const usage = await admin("shop:create", "--json");
    expect(usage.code).toBe(2);
    expect(asJson(usage)).toEqual({ error: { code: "USAGE", message: "--name is required" } });
    const refused = await admin("shop:deactivate", "--shop", "no-such-shop", "--json");
    expect(refused.code).toBe(1);
    expect(asJson(refused).error).toMatchObject({ code: "NOT_FOUND" });
    const unknownFlag = await admin("shop:activate", "--shop", "s", "--colour", "red", "--json");
    expect(unknownFlag.code).toBe(2);
    expect(asJson(unknownFlag).error.code).toBe("USAGE");
    expect(asJson(unknownFlag).error.message).toContain("--colour");
  });

  test("webhooks:log and webhooks:replay of a shop the directory does not know are NOT_FOUND, not an empty log or \"0 requeued\"", async () => {
    // Only the directory runs: the command must stop at it, before asking the dispatcher.
    const unknown = Bun.randomUUIDv7();
    for (const args of [["webhooks:log", "--shop", unknown], ["webhooks:replay", "--shop", unknown, "--since", "2026-11-24T00:00:00Z"]]) {
      const r = await admin(...args, "--json");
      expect({ args, code: r.code, out: JSON.parse(r.stdout) }).toEqual({
        args,
        code: 1,
        out: { error: { code: "NOT_FOUND", message: "shop not found", reason: "SHOP_NOT_FOUND", params: {} } },
      });
    }
  });
});
