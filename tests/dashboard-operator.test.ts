import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Kvm, type KV } from "@nats-io/kv";
import { shopKvKey, ShopRecord } from "@payaccept/contracts";
import { DashboardClient, text, uniqueEmail } from "./dashboard-client.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";

// One real stack for the file; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(90_000);

let stack: Stack;
let kv: KV;
let operator: DashboardClient;
const operatorEmail = uniqueEmail("operator");
const OPERATOR_PASSWORD = "operator password 1";

const admin = (args: string[], stdin?: string) => stack.admin(args, stdin);

const shopInKv = async (shopId: string) => ShopRecord.parse((await kv.get(shopKvKey(shopId)))!.json());

beforeAll(async () => {
  stack = await Stack.start({ services: ["directory", "dashboard", "gateway", "balance"], env: { TRUSTED_PROXIES: "127.0.0.1" } });
  kv = await new Kvm(stack.nc).open("directory");
}, STACK_START_MS);
afterAll(() => stack?.stop());

describe("operators are made with the admin CLI", () => {
  test("user:create-operator takes the password as a flag or on stdin; bad input and taken emails are refused", async () => {
    const created = await admin(["user:create-operator", "--email", operatorEmail, "--password", OPERATOR_PASSWORD, "--json"]);
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ email: operatorEmail });
    expect(created.stdout).not.toContain(OPERATOR_PASSWORD);

    const fromStdin = await admin(["user:create-operator", "--email", uniqueEmail("stdin-operator")], "piped password 123\n");
    expect(fromStdin.code).toBe(0);

    const taken = await admin(["user:create-operator", "--email", operatorEmail.toUpperCase(), "--password", OPERATOR_PASSWORD]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("CONFLICT: a user with this email already exists");
    const bad = await admin(["user:create-operator", "--email", "not-an-email", "--password", "short"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("BAD_REQUEST: email: must be an email address; password: must be 10 to 128 characters");
    expect(stack.log("dashboard")).not.toContain(OPERATOR_PASSWORD);
  });
});

describe("the operator pages", () => {
  let merchant: DashboardClient;
  let shop: { shopId: string; apiKey: string };
  const merchantEmail = uniqueEmail("merchant");

  beforeAll(async () => {
    merchant = DashboardClient.of(stack);
    await merchant.signUp(merchantEmail);
    shop = await merchant.createShop("Operated shop", "live");
    operator = DashboardClient.of(stack);
    const signedIn = await operator.signIn(operatorEmail, OPERATOR_PASSWORD);
    expect(signedIn.location).toBe("/ops/shops");
  }, STACK_START_MS);

  test("list every shop of every account with its owner; operators have no merchant pages", async () => {
    const other = DashboardClient.of(stack);
    await other.signUp(uniqueEmail("other"));
    await other.createShop("Someone else's shop");
    const list = text((await operator.get("/ops/shops")).html);
    expect(list).toContain("Operated shop");
    expect(list).toContain(merchantEmail);
    expect(list).toContain("Someone else's shop");
    expect((await operator.get("/shops")).status).toBe(404);
    expect((await operator.get("/balance")).status).toBe(404);
  });

  test("deactivating a shop stops its key at once; activating brings it back", async () => {
    const page = `/ops/shops/${shop.shopId}`;
    expect((await stack.api(shop.apiKey, "/v1/balance")).status).toBe(200);
    const off = await operator.submit(page, `${page}/active`, { active: "0" });
    expect(off.status).toBe(303);
    expect(text((await operator.follow(off)).html)).toContain("Статус магазина изменён.");
    await eventually(async () => (await stack.api(shop.apiKey, "/v1/balance")).status === 401);
    const card = text((await merchant.get(`/shops/${shop.shopId}`)).html);
    expect(card).toContain("Отключён");
    expect(card).toContain("Ключ выпускается только для активного магазина.");

    await operator.submit(page, `${page}/active`, { active: "1" });
    await eventually(async () => (await stack.api(shop.apiKey, "/v1/balance")).status === 200);
  });

  test("methods and tariff are set per shop and published; nonsense is refused", async () => {
    const page = `/ops/shops/${shop.shopId}`;
    expect((await operator.submit(page, `${page}/methods`, { method: ["CARD"] })).status).toBe(303);
    const none = await operator.submit(page, `${page}/methods`, {});
    expect(none.status).toBe(400);
    expect(text(none.html)).toContain("Оставьте хотя бы один способ оплаты.");

    const tariff = { "SBP.percent": "1,5", "SBP.fixed": "10", "SBP.min": "20,00", "CARD.percent": "2.75", "CARD.fixed": "0", "CARD.min": "0" };
    expect((await operator.submit(page, `${page}/tariff`, tariff)).status).toBe(303);
    const bad = await operator.submit(page, `${page}/tariff`, { ...tariff, "CARD.percent": "101" });
    expect(bad.status).toBe(400);
    expect(await shopInKv(shop.shopId)).toMatchObject({
      methods: ["CARD"],
      tariff: { SBP: { percentBp: 150, fixedKopecks: 1000, minKopecks: 2000 }, CARD: { percentBp: 275, fixedKopecks: 0, minKopecks: 0 } },
    });
    expect(text((await merchant.get(`/shops/${shop.shopId}`)).html)).toContain("Карта: 2,75\u00a0%");
  });

  test("a live shop's acquirers per method are chosen in failover order and published; a sandbox shop takes none", async () => {
    const page = `/ops/shops/${shop.shopId}`;
    expect((await operator.submit(page, `${page}/connectors`, { "CARD.1": "tbank", "CARD.2": "emulator", "CARD.3": "", "SBP.1": "", "SBP.2": "", "SBP.3": "" })).status).toBe(303);
    expect((await shopInKv(shop.shopId)).connectors).toEqual({ CARD: ["tbank", "emulator"] });
    const twice = await operator.submit(page, `${page}/connectors`, { "CARD.1": "tbank", "CARD.2": "tbank" });
    expect(twice.status).toBe(400);
    expect(text(twice.html)).toContain("Один эквайер указан для способа дважды.");
    expect((await operator.submit(page, `${page}/connectors`, {})).status).toBe(303);
    expect((await shopInKv(shop.shopId)).connectors).toBeUndefined();

    const sandbox = await merchant.createShop("Operated sandbox", "sandbox");
    expect(text((await operator.get(`/ops/shops/${sandbox.shopId}`)).html)).toContain("Платежи тестового магазина не доходят до банка");
    // This stack runs no payments service: the acquirers' page says their state is unknown rather than failing.
    const health = await operator.get("/ops/connectors");
    expect([health.status, text(health.html)]).toEqual([200, expect.stringContaining("Сервис платежей сейчас не отвечает")]);
  });

  test("operator forms need the CSRF token like every other", async () => {
    await operator.get(`/ops/shops/${shop.shopId}`);
    expect((await operator.post(`/ops/shops/${shop.shopId}/active`, { active: "0" }, { csrf: null })).status).toBe(403);
    expect((await shopInKv(shop.shopId)).active).toBe(true);
  });
});

describe("when the directory cannot publish or cannot be reached", () => {
  test("a change whose publication fails is saved, said to be not yet in effect, and published once the bucket is back", async () => {
    const merchant = DashboardClient.of(stack);
    await merchant.signUp(uniqueEmail("outage"));
    const { shopId } = await merchant.createShop("Before the outage");
    await merchant.get(`/shops/${shopId}`);
    // NATS lost the bucket (a wiped store): the directory's next write to it fails and it resyncs.
    await kv.destroy();
    const saved = await merchant.post(`/shops/${shopId}/settings`, { name: "During the outage", successUrl: "", failUrl: "" });
    expect(saved.status).toBe(503);
    expect(text(saved.html)).toContain("Сохранено, но ещё не действует");
    expect(text((await merchant.get(`/shops/${shopId}`)).html)).toContain("During the outage");
    kv = await eventually(async () => {
      const bucket = await new Kvm(stack.nc).open("directory");
      return (await bucket.status()) && bucket;
    }, 30_000);
    await eventually(async () => (await kv.get(shopKvKey(shopId)))?.json<ShopRecord>().name === "During the outage", 30_000);
  });

  test("with NATS down a shop page says the shop directory does not answer, and opens again once NATS is back", async () => {
    const merchant = DashboardClient.of(stack);
    await merchant.signUp(uniqueEmail("nats-down"));
    const { shopId } = await merchant.createShop("Across the outage");
    await stack.nats.stop();
    try {
      const down = await merchant.get(`/shops/${shopId}`);
      expect(down.status).toBe(503);
      expect(text(down.html)).toContain("Справочник магазинов сейчас не отвечает");
    } finally {
      await stack.startNats();
    }
    await eventually(async () => (await merchant.get(`/shops/${shopId}`)).status === 200, 30_000);
  });
});
