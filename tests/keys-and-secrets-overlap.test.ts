import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { hostname, userInfo } from "node:os";
import Stripe from "stripe";
import { rpcs, type AuditEvent, type Payment } from "@payaccept/contracts";
import { verifyWebhook } from "@payaccept/sdk";
import { startReceiver, type Receiver, type ReceivedWebhook } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { DashboardClient, uniqueEmail } from "./dashboard-client.ts";
import { ENGINES } from "./harness/engines.ts";
import { eventually, Stack } from "./harness/stack.ts";

// Real processes, two gateways, an overlap that runs out: the same per-test limit as infra/scripts/test.sh.
setDefaultTimeout(120_000);

/** Stripe's own verifier of its `Stripe-Signature` scheme, which Payaccept-Signature follows: third-party code, no request leaves. */
const stripe = new Stripe("sk_test_not_used");
const stripeAccepts = (w: ReceivedWebhook, secret: string) =>
  stripe.webhooks.constructEventAsync(w.body, w.headers["payaccept-signature"]!, secret).then(
    () => true,
    () => false,
  );
const sdkAccepts = (w: ReceivedWebhook, secret: string) => verifyWebhook(w.body, w.headers, secret).ok;

const CLI_OPERATOR = `${userInfo().username}@${hostname()}`;
/** The log's rows, without the page's header (which names the signed-in person). */
const rowsOf = (html: string) => html.slice(html.indexOf("<tbody>"));

describe.each(ENGINES)("keys and signing secrets with an overlap, and the audit log (%s)", (engine) => {
  let stack: Stack;
  let gateway2: Awaited<ReturnType<Stack["addReplica"]>>;
  let receiver: Receiver;
  let merchant: DashboardClient;
  let email: string;
  let shop: { shopId: string; apiKey: string };

  beforeAll(async () => {
    stack = await Stack.start({
      services: ["directory", "dashboard", "payments", "gateway", "webhook-dispatcher"],
      env: { TRUSTED_PROXIES: "127.0.0.1" },
      postgres: engine === "postgres",
    });
    gateway2 = await stack.addReplica("gateway");
    receiver = startReceiver();
    merchant = DashboardClient.of(stack, "198.51.100.77");
    email = uniqueEmail("owner");
    await merchant.signUp(email);
    shop = await merchant.createShop("Overlap shop");
    await merchant.submit(`/shops/${shop.shopId}/webhook`, `/shops/${shop.shopId}/webhook/url`, { webhookUrl: receiver.url });
  });
  afterAll(async () => {
    receiver?.stop();
    await stack?.stop();
  });

  const admin = async (...args: string[]) => {
    const r = await stack.admin([...args, "--json"]);
    if (r.code !== 0) throw new Error(`admin ${args.join(" ")}: ${r.code} ${r.stdout} ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const gateways = () => [stack.url("gateway"), gateway2.url];
  /** The status a key gets from one gateway on a read that needs nothing but the key (an unknown payment: 404 when it works). */
  const statusOn = async (base: string, apiKey: string) =>
    (await fetch(`${base}/api/v1/payments/0199a3e0-0000-7000-8000-000000000000`, { headers: { "X-Api-Key": apiKey } })).status;
  const statusesOf = (apiKey: string) => Promise.all(gateways().map((g) => statusOn(g, apiKey)));
  const auditOf = async (filter: Partial<Parameters<typeof stack.call<typeof rpcs.directory.auditLog>>[1]> = {}): Promise<AuditEvent[]> =>
    (await stack.call(rpcs.directory.auditLog, { accountId: undefined, shopId: shop.shopId, limit: 200, ...filter })).items;
  const entry = (action: AuditEvent["action"], match: (e: AuditEvent) => boolean = () => true) =>
    eventually(async () => (await auditOf({ action })).find(match), 20_000);

  test("a rolled key works on both gateways until its expiry, and is refused there at that instant with the directory down", async () => {
    const old = shop.apiKey;
    expect(await statusesOf(old)).toEqual([404, 404]);
    const rolled = await admin("key:rotate", "--shop", shop.shopId, "--overlap", "12s");
    const expiresAt = Date.parse(rolled.previousKeyExpiresAt);
    shop = { ...shop, apiKey: rolled.apiKey };
    // Both keys work on both gateways while the overlap lasts (12 s: the old key is asked at once).
    expect(await statusesOf(old)).toEqual([404, 404]);
    await eventually(async () => (await statusesOf(rolled.apiKey)).every((s) => s === 404));
    const listed = await admin("key:list", "--shop", shop.shopId);
    expect(listed.retiring).toEqual([expect.objectContaining({ prefix: old.slice(0, 12), expiresAt: rolled.previousKeyExpiresAt })]);

    // Nothing can be published from here on: the gateways go by the expiry in their own copy.
    await stack.kill("directory");
    await eventually(async () => (await statusesOf(old)).every((s) => s === 401), 30_000, 200);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt - 1000);
    expect(await statusesOf(rolled.apiKey)).toEqual([404, 404]);

    await stack.restart("directory");
    // The sweep records the expiry as the platform's doing, at the instant it passed, and revokes the key.
    const expired = await entry("api_key.expired");
    expect(expired).toMatchObject({ actor: { kind: "system" }, at: new Date(expiresAt).toISOString(), before: { keyPrefix: old.slice(0, 12) } });
    expect((await admin("key:list", "--shop", shop.shopId)).retiring).toEqual([]);
    expect(await statusesOf(old)).toEqual([401, 401]);
  });

  test("an overlap ended early from the dashboard stops the old key on both gateways; the card shows both keys until then", async () => {
    const old = shop.apiKey;
    await merchant.get(`/shops/${shop.shopId}`);
    const issued = await merchant.follow(await merchant.post(`/shops/${shop.shopId}/key`, { overlap: "7d" }));
    const apiKey = /pk_test_[A-Za-z0-9_-]{43}/.exec(issued.html)![0];
    shop = { ...shop, apiKey };
    const card = await merchant.get(`/shops/${shop.shopId}`);
    expect(card.html).toContain(`${old.slice(0, 12)}…`);
    expect(card.html).toContain(`${apiKey.slice(0, 12)}…`);
    const keyId = /\/keys\/([0-9a-f-]{36})\/end/.exec(card.html)![1]!;
    await eventually(async () => (await statusesOf(apiKey)).every((s) => s === 404));
    expect(await statusesOf(old)).toEqual([404, 404]);

    expect((await merchant.post(`/shops/${shop.shopId}/keys/${keyId}/end`)).status).toBe(303);
    await eventually(async () => (await statusesOf(old)).every((s) => s === 401));
    expect(await statusesOf(apiKey)).toEqual([404, 404]);
    expect((await merchant.get(`/shops/${shop.shopId}`)).html).not.toContain(`/keys/${keyId}/end`);

    const rolled = await entry("api_key.rolled", (e) => e.before?.keyPrefix === old.slice(0, 12));
    expect(rolled).toMatchObject({ actor: { kind: "member", label: email, ip: "198.51.100.77" }, after: { keyPrefix: apiKey.slice(0, 12) } });
    expect(await entry("api_key.overlap_ended", (e) => e.target?.id === keyId)).toMatchObject({ actor: { kind: "member", label: email } });
  });

  test("during a secret's overlap every webhook verifies with either secret (our SDK and Stripe's verifier); ended, only with the new", async () => {
    const oldSecret = (await stack.call(rpcs.directory.getShop, { shopId: shop.shopId, withSecret: true })).shop.signingSecret!;
    const rotated = await admin("secret:rotate", "--shop", shop.shopId, "--overlap", "1h");
    const newSecret: string = rotated.signingSecret;
    expect(Date.parse(rotated.previousValidUntil)).toBeGreaterThan(Date.now());

    // A test webhook and a live one (a payment canceled through the API) during the overlap.
    const seen = receiver.requests.length;
    expect((await stack.call(rpcs.webhooks.test, { shopId: shop.shopId })).httpStatus).toBe(200);
    const payment = (await (await stack.api(shop.apiKey, "/v1/payments", { method: "POST", json: { orderId: `overlap-${Bun.randomUUIDv7()}`, amountKopecks: 15_000 } })).json()) as Payment;
    expect((await stack.api(shop.apiKey, `/v1/payments/${payment.id}/cancel`, { method: "POST" })).status).toBe(200);
    await eventually(() => receiver.requests.slice(seen).some((w) => JSON.parse(w.body).id === payment.id));
    const during = receiver.requests.slice(seen);
    expect(during.map((w) => JSON.parse(w.body).test)).toEqual([true, true]);
    for (const w of during) {
      expect(w.headers["payaccept-signature"]!.match(/v1=/g)).toHaveLength(2);
      expect([sdkAccepts(w, newSecret), sdkAccepts(w, oldSecret)]).toEqual([true, true]);
      expect([await stripeAccepts(w, newSecret), await stripeAccepts(w, oldSecret)]).toEqual([true, true]);
      // A receiver that checks only the spec's headers goes on with the old secret until it switches.
      expect(verifyWebhook(w.body, { "x-timestamp": w.headers["x-timestamp"]!, "x-signature-v2": w.headers["x-signature-v2"]! }, oldSecret).ok).toBe(true);
    }

    // The merchant switched: the overlap ends early, and from then on one signature, the new secret's.
    expect(await admin("secret:end-overlap", "--shop", shop.shopId)).toEqual({ shopId: shop.shopId, ended: true });
    const after = await eventually(async () => {
      const before = receiver.requests.length;
      await stack.call(rpcs.webhooks.test, { shopId: shop.shopId });
      const w = receiver.requests.at(before);
      return w && w.headers["payaccept-signature"]!.match(/v1=/g)!.length === 1 ? w : undefined;
    });
    expect([sdkAccepts(after, newSecret), sdkAccepts(after, oldSecret)]).toEqual([true, false]);
    expect([await stripeAccepts(after, newSecret), await stripeAccepts(after, oldSecret)]).toEqual([true, false]);
    expect(verifyWebhook(after.body, { "x-timestamp": after.headers["x-timestamp"]!, "x-signature-v2": after.headers["x-signature-v2"]! }, newSecret).ok).toBe(true);

    expect(await entry("signing_secret.rotated")).toMatchObject({ actor: { kind: "cli", label: CLI_OPERATOR }, after: { previousValidUntil: rotated.previousValidUntil } });
    expect(await entry("signing_secret.overlap_ended")).toMatchObject({ actor: { kind: "cli", label: CLI_OPERATOR } });
  });

  test("a secret's overlap runs out by itself: recorded as the platform's, one signature again", async () => {
    await admin("secret:rotate", "--shop", shop.shopId, "--overlap", "1s");
    const expired = await entry("signing_secret.expired");
    expect(expired.actor.kind).toBe("system");
    const before = receiver.requests.length;
    await stack.call(rpcs.webhooks.test, { shopId: shop.shopId });
    expect(receiver.requests.at(before)!.headers["payaccept-signature"]!.match(/v1=/g)).toHaveLength(1);
  });

  test("the audit log names who did what from the API, the dashboard and the CLI; the page filters it and exports it", async () => {
    // API: a refund of a paid sandbox payment, with the shop's key.
    const payment = (await (await stack.api(shop.apiKey, "/v1/payments", { method: "POST", json: { orderId: `refund-${Bun.randomUUIDv7()}`, amountKopecks: 20_000 } })).json()) as Payment;
    await stack.call(rpcs.payments.start, { id: payment.id, method: "SBP" });
    await stack.call(rpcs.payments.sandboxOutcome, { id: payment.id, outcome: "SUCCESS" });
    const refund = await stack.api(shop.apiKey, `/v1/payments/${payment.id}/refunds`, { method: "POST", json: { amountKopecks: 5_000 }, headers: { "User-Agent": "shop-backend/2.1" } });
    expect(refund.status).toBe(201);
    const refunded = await entry("refund.created", (e) => e.after?.paymentId === payment.id);
    expect(refunded).toMatchObject({
      actor: { kind: "apiKey", label: shop.apiKey.slice(0, 12), ip: "127.0.0.1", userAgent: "shop-backend/2.1" },
      target: { type: "refund", id: ((await refund.json()) as { id: string }).id },
      after: { amountKopecks: 5_000 },
    });

    // Dashboard: the secret revealed, the webhook URL changed.
    await merchant.submit(`/shops/${shop.shopId}/webhook`, `/shops/${shop.shopId}/webhook/secret`);
    await merchant.submit(`/shops/${shop.shopId}/webhook`, `/shops/${shop.shopId}/webhook/url`, { webhookUrl: `${receiver.url}?v=2` });
    expect(await entry("signing_secret.revealed")).toMatchObject({ actor: { kind: "member", label: email, ip: "198.51.100.77" } });
    expect(await entry("shop.webhook_url_changed", (e) => e.after?.webhookUrl === `${receiver.url}?v=2`)).toMatchObject({
      actor: { kind: "member", label: email },
      before: { webhookUrl: receiver.url },
    });

    // CLI: a setting changed by an operator.
    await admin("shop:update", "--shop", shop.shopId, "--name", "Renamed by ops");
    expect(await entry("shop.settings_changed")).toMatchObject({ actor: { kind: "cli", label: CLI_OPERATOR }, before: { name: "Overlap shop" }, after: { name: "Renamed by ops" } });

    // The page: every kind of actor, filtered by actor and by action; another account sees none of it.
    const page = await merchant.get("/audit");
    expect(page.status).toBe(200);
    for (const label of [email, shop.apiKey.slice(0, 12), CLI_OPERATOR]) expect(rowsOf(page.html)).toContain(label);
    const byKey = rowsOf((await merchant.get(`/audit?actor=${encodeURIComponent(shop.apiKey.slice(0, 12))}`)).html);
    expect(byKey).toContain("Возврат");
    expect(byKey).not.toContain(email);
    const byAction = rowsOf((await merchant.get("/audit?action=signing_secret.revealed")).html);
    expect(byAction).toContain("Секрет подписи показан");
    expect(byAction).not.toContain(CLI_OPERATOR);
    expect((await merchant.get("/audit?from=2026-13-01")).status).toBe(400);
    const csv = await merchant.get("/audit.csv?action=refund.created");
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const lines = csv.html.replace(/^\uFEFF/, "").trim().split("\r\n");
    expect(lines[0]).toStartWith("at,action,actorKind,actor,");
    expect(lines.slice(1).some((l) => l.includes("refund.created") && l.includes(shop.apiKey.slice(0, 12)))).toBe(true);

    const stranger = DashboardClient.of(stack);
    await stranger.signUp(uniqueEmail("stranger"));
    expect((await stranger.get("/audit")).html).toContain("Записей нет.");
    expect((await stranger.get(`/audit?shop=${shop.shopId}`)).html).toContain("Записей нет.");
  });
});
