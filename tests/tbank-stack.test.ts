import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Kvm } from "@nats-io/kv";
import { DIRECTORY_BUCKET, rpcs, shopKvKey, ShopRecord, type ShopConnectors } from "@payaccept/contracts";
import { FakeTBank, TEST_CARDS } from "./fakes/tbank/fake-tbank.ts";
import { payOnBankForm, submit, TERMINAL } from "./connectors/tbank-driver.ts";
import { BankApp } from "./payments-fixtures.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";
import { Buyer } from "./paypage-buyer.ts";
import { api, create, getPayment, shopWithReceiver, statusIs, webhookOf, webhooksAre, webhookStatuses, type LiveShop } from "./recurring-fixtures.ts";

// Real processes take longer than bun's 5 s default; bounded all the same.
setDefaultTimeout(90_000);

/**
 * The whole stack taking payments through T-Bank's connector, against the fake of the bank's API
 * (tests/fakes/tbank, written from the bank's documentation): a live shop whose operator chose
 * T-Bank for cards and SBP. One stack for the file; every case has its own shop or payment.
 * SQLite only: the connector's rows (payments.connector, saved_methods.connector) are the store's
 * ordinary writes, tested on both engines in services/payments/src/store.
 */

let stack: Stack;
let fake: FakeTBank;
let shop: LiveShop;

beforeAll(async () => {
  fake = new FakeTBank({ terminals: { [TERMINAL.key]: TERMINAL.password }, sbpRefundMs: 100, notificationRetryMs: [200, 400, 800, 1600, 3200] });
  stack = await Stack.start({
    services: ["directory", "payments", "gateway", "paypage", "webhook-dispatcher", "balance", "acquirer-emulator"],
    env: {
      TBANK_TERMINAL_KEY: TERMINAL.key,
      TBANK_PASSWORD: TERMINAL.password,
      TBANK_API_URL: fake.apiUrl,
      REFUND_RETRY_MS: "1000",
      TIMER_SWEEP_MS: "200",
      CONNECTOR_CIRCUIT_FAILURES: "2",
      // Long enough for the checks of an open circuit on a loaded machine, short enough to wait out.
      CONNECTOR_CIRCUIT_OPEN: "5s",
      // The scheduled reconciliation runs every second, over what has been pending an hour: nothing of these cases.
      RECONCILE_INTERVAL: "1s",
      RECONCILE_AFTER: "1h",
    },
  });
  fake.notificationUrl = stack.env.TBANK_NOTIFICATION_URL!;
  shop = await shopWithReceiver(stack);
  // The operator's choice, as the admin CLI makes it.
  const chosen = await stack.admin(["shop:connectors", "--shop", shop.shopId, "--card", "tbank", "--sbp", "tbank", "--json"]);
  expect(chosen.code).toBe(0);
  expect(JSON.parse(chosen.stdout)).toEqual({ shopId: shop.shopId, sandbox: false, connectors: { CARD: ["tbank"], SBP: ["tbank"] } });
  await published(shop.shopId, { CARD: ["tbank"], SBP: ["tbank"] });
}, STACK_START_MS);

/** The shop's record with its connectors is in the directory's bucket, and a moment on in payments' copy of it (its KV watch). */
async function published(shopId: string, connectors: ShopConnectors): Promise<void> {
  const kv = await new Kvm(stack.nc).open(DIRECTORY_BUCKET);
  await eventually(async () => Bun.deepEquals(ShopRecord.parse((await kv.get(shopKvKey(shopId)))!.json()).connectors, connectors));
  await Bun.sleep(500);
}
afterAll(async () => {
  shop?.receiver.stop();
  await stack?.stop();
  await fake?.stop();
});

/** The buyer on payUrl: starts paying by card on our page, which sends them to the bank's own form. */
async function bankFormOf(payUrl: string): Promise<{ buyer: Buyer; path: string; formUrl: string }> {
  const buyer = new Buyer(stack.url("paypage"));
  const path = new URL(payUrl).pathname;
  const { csrf } = await buyer.page(path);
  expect((await buyer.post(`${path}/start`, { csrf: csrf!, method: "CARD" })).status).toBe(303);
  const { html } = await buyer.page(path);
  const formUrl = /<a class="button primary" href="([^"]+)"/.exec(html)?.[1];
  expect(formUrl).toStartWith(`${fake.url}/pay/`);
  // Our page has no card form of its own for a hosted page: card data never passes it.
  expect(html).not.toContain('name="pan"');
  return { buyer, path, formUrl: formUrl!.replaceAll("&amp;", "&") };
}

describe("a live shop on T-Bank (the fake bank's API)", () => {
  test("create → the buyer pays on the bank's page → notification → SUCCESS → webhook; the bank saw every request signed", async () => {
    const p = await create(stack, shop, { amountKopecks: 245_000, description: "Кофе в зёрнах" });
    const { buyer, path, formUrl } = await bankFormOf(p.payUrl);
    const paid = await payOnBankForm(formUrl, TEST_CARDS.success);
    // Back to our page once paid (SuccessURL is payUrl).
    expect(paid.status).toBe(303);
    expect(new URL(paid.headers.get("location")!).pathname).toBe(path);
    expect(await statusIs(stack, shop, p.id, "SUCCESS")).toMatchObject({ amountKopecks: 245_000, paidAt: expect.any(String) });
    expect((await webhookOf(shop, p.id, "SUCCESS")).amountKopecks).toBe(245_000);
    expect((await buyer.page(path)).res.status).toBe(200);
    const init = fake.calls("Init").find((b) => b.OrderId === p.id)!;
    expect(init).toMatchObject({ Amount: 245_000, PayType: "O", NotificationURL: stack.env.TBANK_NOTIFICATION_URL });
    // The bank's notifications, AUTHORIZED and CONFIRMED, were both answered OK.
    await eventually(() => fake.delivered(p.id).length === 2);
    expect(webhookStatuses(shop, p.id)).toEqual(["SUCCESS"]);
  });

  test("a declined card: FAILED with its webhook; duplicated and reordered notifications apply once", async () => {
    const declined = await create(stack, shop, { method: "CARD" });
    const { formUrl } = await bankFormOf(declined.payUrl);
    expect((await payOnBankForm(formUrl, TEST_CARDS.insufficientFunds)).status).toBe(303);
    await statusIs(stack, shop, declined.id, "FAILED");
    await webhookOf(shop, declined.id, "FAILED");

    fake.duplicateNotifications(true);
    fake.holdNotifications();
    try {
      const p = await create(stack, shop, { method: "CARD", amountKopecks: 51_000 });
      const { formUrl: form } = await bankFormOf(p.payUrl);
      expect((await payOnBankForm(form, TEST_CARDS.success)).status).toBe(303);
      // CONFIRMED arrives before AUTHORIZED, each twice: SUCCESS once; the late AUTHORIZED is a step of a one-stage payment.
      await fake.releaseNotifications("reverse");
      await statusIs(stack, shop, p.id, "SUCCESS");
      await webhooksAre(shop, p.id, ["SUCCESS"]);
      await eventually(() => fake.delivered(p.id).length === 4);
    } finally {
      fake.duplicateNotifications(false);
    }
  });

  test("SBP: the QR of the bank, paid in the payer's bank app → SUCCESS", async () => {
    const p = await create(stack, shop, { method: "SBP", amountKopecks: 70_000 });
    const view = await stack.call(rpcs.payments.start, { id: p.id, method: "SBP" });
    expect(view.sbp!.qrPayload).toStartWith(`${fake.url}/qr/`);
    expect((await fetch(view.sbp!.qrPayload)).status).toBe(200);
    expect((await submit(view.sbp!.qrPayload, { action: "pay" })).status).toBe(200);
    await statusIs(stack, shop, p.id, "SUCCESS");
    await webhookOf(shop, p.id, "SUCCESS");
    expect(fake.calls("GetQr").some((b) => b.PaymentId === fake.paymentsOf(p.id)[0]!.paymentId)).toBe(true);
  });

  test("a hold, then a partial capture: AUTHORIZED, then SUCCESS of the captured amount; the bank confirmed that much", async () => {
    const p = await create(stack, shop, { capture: false, amountKopecks: 300_000 });
    const { formUrl } = await bankFormOf(p.payUrl);
    expect((await payOnBankForm(formUrl, TEST_CARDS.success3ds)).status).toBe(303);
    await statusIs(stack, shop, p.id, "AUTHORIZED");
    await webhookOf(shop, p.id, "AUTHORIZED");
    const captured = await api(stack, shop, `/v1/payments/${p.id}/capture`, { method: "POST", json: { amountKopecks: 264_000 } });
    expect(captured).toMatchObject({ status: 200, body: { status: "SUCCESS", amountKopecks: 264_000, heldKopecks: 300_000 } });
    expect(fake.paymentsOf(p.id)[0]).toMatchObject({ status: "CONFIRMED", amount: 264_000 });
    await webhooksAre(shop, p.id, ["AUTHORIZED", "SUCCESS"]);
  });

  test("partial refunds, card and SBP: each one returned once at the bank; the last makes the payment REFUNDED", async () => {
    for (const method of ["CARD", "SBP"] as const) {
      const p = await create(stack, shop, { method, amountKopecks: 90_000 });
      if (method === "CARD") expect((await payOnBankForm((await bankFormOf(p.payUrl)).formUrl, TEST_CARDS.success)).status).toBe(303);
      else expect((await submit((await stack.call(rpcs.payments.start, { id: p.id, method })).sbp!.qrPayload, { action: "pay" })).status).toBe(200);
      await statusIs(stack, shop, p.id, "SUCCESS");
      for (const [amount, key] of [
        [30_000, "r1"],
        [60_000, "r2"],
      ] as const) {
        const res = await api(stack, shop, `/v1/payments/${p.id}/refunds`, { method: "POST", json: { amountKopecks: amount }, headers: { "Idempotency-Key": `${p.id}-${key}` } });
        expect(res.status).toBe(201);
        const id = (res.body as { id: string }).id;
        // An SBP refund is asynchronous at the bank: the refund sweeper asks again until it is done.
        await eventually(
          async () =>
            ((await api(stack, shop, `/v1/payments/${p.id}/refunds`)).body as { items: { id: string; status: string }[] }).items.find((r) => r.id === id)?.status === "SUCCEEDED",
          30_000,
        );
      }
      expect(await statusIs(stack, shop, p.id, "REFUNDED")).toMatchObject({ refundedKopecks: 90_000 });
      expect(fake.paymentsOf(p.id)[0]).toMatchObject({ status: "REFUNDED", amount: 0 });
      expect(fake.paymentsOf(p.id)[0]!.refunds.map((r) => r.amount)).toEqual([30_000, 60_000]);
      await webhookOf(shop, p.id, "REFUNDED");
    }
  });

  test("a card saved on the bank's form (Recurrent, RebillId) is charged three times without the buyer", async () => {
    const p = await create(stack, shop, { savePaymentMethod: true, customerId: "client-7", amountKopecks: 49_900 });
    const buyer = new Buyer(stack.url("paypage"));
    const path = new URL(p.payUrl).pathname;
    const { csrf } = await buyer.page(path);
    expect((await buyer.post(`${path}/start`, { csrf: csrf!, method: "CARD", saveMethod: "yes" })).status).toBe(303);
    const saved = await stack.call(rpcs.payments.checkout, { id: p.id });
    expect((await payOnBankForm(saved.card!.formAction, TEST_CARDS.success)).status).toBe(303);
    const paid = await statusIs(stack, shop, p.id, "SUCCESS");
    expect(paid.paymentMethod).toMatchObject({ method: "CARD", card: { last4: "0777", brand: "VISA" } });
    const init = fake.calls("Init").find((b) => b.OrderId === p.id)!;
    expect(init).toMatchObject({ Recurrent: "Y", CustomerKey: p.id });

    const charges = fake.calls("Charge").length;
    for (let i = 1; i <= 3; i++) {
      const charge = await api(stack, shop, "/v1/payments", {
        method: "POST",
        json: { orderId: `sub-${p.id}-${i}`, amountKopecks: 49_900, paymentMethodId: paid.paymentMethod!.id },
        headers: { "Idempotency-Key": `sub-${p.id}-${i}` },
      });
      expect(charge).toMatchObject({ status: 201, body: { status: "SUCCESS", merchantInitiated: true } });
      await webhookOf(shop, (charge.body as { id: string }).id, "SUCCESS");
    }
    // One Charge each, by the card's RebillId, each on its own Init (OrderId = the charge's id).
    expect(
      fake
        .calls("Charge")
        .slice(charges)
        .map((b) => b.RebillId),
    ).toEqual(Array(3).fill(fake.paymentsOf(p.id)[0]!.card!.rebillId));
  });

  test("a capture whose answer is lost (and whose notification never comes) is resolved by GetState on its repeat", async () => {
    const p = await create(stack, shop, { capture: false, amountKopecks: 120_000 });
    const { formUrl } = await bankFormOf(p.payUrl);
    expect((await payOnBankForm(formUrl, TEST_CARDS.success)).status).toBe(303);
    await statusIs(stack, shop, p.id, "AUTHORIZED");
    fake.dropNotificationsOf(p.id);
    fake.dropAnswer("Confirm");
    const lost = await api(stack, shop, `/v1/payments/${p.id}/capture`, { method: "POST", json: { amountKopecks: 100_000 } });
    expect(lost).toMatchObject({ status: 503, body: { code: "PROVIDER_NO_ANSWER" } });
    // The bank did confirm: the repeat reads it with GetState and sends no second Confirm.
    expect(fake.paymentsOf(p.id)[0]).toMatchObject({ status: "CONFIRMED", amount: 100_000 });
    const confirms = fake.calls("Confirm").length;
    const repeat = await api(stack, shop, `/v1/payments/${p.id}/capture`, { method: "POST", json: { amountKopecks: 100_000 } });
    expect(repeat).toMatchObject({ status: 200, body: { status: "SUCCESS", amountKopecks: 100_000 } });
    expect(fake.calls("Confirm").length).toBe(confirms);
    await webhooksAre(shop, p.id, ["AUTHORIZED", "SUCCESS"]);
    expect((await getPayment(stack, shop, p.id)).status).toBe("SUCCESS");
  });
});

describe("routing with failover between connectors", () => {
  test("T-Bank first, the emulator next: a timeout at T-Bank is never sent on; T-Bank down, the emulator takes the session; its health says so", async () => {
    const both = await shopWithReceiver(stack);
    await stack.call(rpcs.directory.updateShop, { shopId: both.shopId, connectors: { CARD: ["tbank", "emulator"] } });
    await published(both.shopId, { CARD: ["tbank", "emulator"] });
    // A sandbox shop's payments never reach an acquirer: it takes none.
    const sandbox = await stack.createShop({ name: "Песочница", sandbox: true });
    const refused = await stack.admin(["shop:connectors", "--shop", sandbox.shopId, "--card", "tbank"]);
    expect([refused.code, refused.stderr]).toEqual([1, expect.stringContaining("CONFLICT: a sandbox shop's payments never reach an acquirer")]);

    // The fate of an Init that timed out is unknown: it is looked up at T-Bank, and the buyer asked to try again, nothing sent elsewhere.
    const unknown = await create(stack, both, { method: "CARD" });
    fake.delay("Init", 3500);
    await expect(stack.call(rpcs.payments.start, { id: unknown.id, method: "CARD" }, 8000)).rejects.toMatchObject({ code: "UNAVAILABLE", reason: "PROVIDER_UNAVAILABLE" });
    expect((await getPayment(stack, both, unknown.id)).status).toBe("CREATED");
    expect(fake.calls("CheckOrder").some((b) => b.OrderId === unknown.id)).toBe(true);
    expect(stack.logLines("payments").some((l) => l.paymentId === unknown.id && l.msg === "connector unavailable before anything began; the next one takes the session")).toBe(
      false,
    );

    // Nothing answers at T-Bank's address: nothing began there, the emulator takes the buyer's session.
    await fake.stop();
    try {
      const moved = await create(stack, both, { method: "CARD", amountKopecks: 66_600 });
      const view = await stack.call(rpcs.payments.start, { id: moved.id, method: "CARD" });
      expect({ ...view.card }).toMatchObject({ hosted: false, formAction: expect.stringContaining("/card/") });
      expect((await new BankApp(stack).card(view.card!.formAction, "4111 1111 1111 1111")).status).toBe(303);
      await statusIs(stack, both, moved.id, "SUCCESS");
      await webhookOf(both, moved.id, "SUCCESS");
      // A second session: T-Bank's circuit is open by now (two unanswered calls in a row), so it is not even tried.
      const next = await create(stack, both, { method: "CARD" });
      expect((await stack.call(rpcs.payments.start, { id: next.id, method: "CARD" })).card!.hosted).toBe(false);
      const health = (await stack.call(rpcs.payments.connectors, {})).connectors;
      expect(health.find((c) => c.id === "tbank")).toMatchObject({ configured: true, circuit: "open" });
      expect(health.find((c) => c.id === "emulator")).toMatchObject({ configured: true, default: true, circuit: "closed", successRatio: 1 });
      const metrics = await (await fetch(`${stack.url("payments")}/metrics`)).text();
      expect(metrics).toMatch(/payments_connector_failovers_total\{from="tbank",to="emulator"\} [1-9]/);
      expect(metrics).toMatch(/payments_connector_circuit_state\{connector="tbank"\} 2/);
      const cli = await stack.admin(["connectors:health", "--json"]);
      expect(JSON.parse(cli.stdout).connectors.find((c: { id: string }) => c.id === "tbank")).toMatchObject({ circuit: "open" });
    } finally {
      fake.start();
    }
    // Back: once its circuit lets a trial call through, T-Bank takes sessions again.
    await eventually(async () => (await stack.call(rpcs.payments.connectors, {})).connectors.find((c) => c.id === "tbank")!.circuit === "half-open", 15_000, 200);
    const back = await create(stack, both, { method: "CARD" });
    expect((await stack.call(rpcs.payments.start, { id: back.id, method: "CARD" })).card!.hosted).toBe(true);
    both.receiver.stop();
  });
});

describe("reconciliation with the acquirer", () => {
  test("a notification that never came: `admin reconcile` reads the bank's word and applies it, with its webhook, once; the scheduled job runs", async () => {
    const own = await shopWithReceiver(stack);
    await stack.call(rpcs.directory.updateShop, { shopId: own.shopId, connectors: { CARD: ["tbank"] } });
    await published(own.shopId, { CARD: ["tbank"] });
    const p = await create(stack, own, { method: "CARD", amountKopecks: 33_300 });
    fake.dropNotificationsOf(p.id);
    const { formUrl } = await bankFormOf(p.payUrl);
    expect((await payOnBankForm(formUrl, TEST_CARDS.success)).status).toBe(303);
    expect(fake.paymentsOf(p.id)[0]!.status).toBe("CONFIRMED");
    await Bun.sleep(500);
    expect((await getPayment(stack, own, p.id)).status).toBe("PENDING");

    const run = await stack.admin(["reconcile", "--older-than", "0s", "--shop", own.shopId, "--json"]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect({ ...report }).toMatchObject({ checked: 1, unanswered: 0 });
    expect(report.differences).toEqual([
      {
        kind: "payment",
        paymentId: p.id,
        refundId: null,
        shopId: own.shopId,
        connector: "tbank",
        ours: "PENDING",
        theirs: "PAID",
        action: "applied",
        status: "SUCCESS",
        detail: "PENDING → SUCCESS as the acquirer has it",
      },
    ]);
    expect((await getPayment(stack, own, p.id)).status).toBe("SUCCESS");
    await webhooksAre(own, p.id, ["SUCCESS"]);
    expect(fake.calls("GetState").some((b) => String(b.PaymentId) === fake.paymentsOf(p.id)[0]!.paymentId)).toBe(true);
    // Nothing differs any more: a second run finds nothing to look up.
    expect(JSON.parse((await stack.admin(["reconcile", "--older-than", "0s", "--shop", own.shopId, "--json"])).stdout)).toMatchObject({ checked: 0, differences: [] });
    expect(webhookStatuses(own, p.id)).toEqual(["SUCCESS"]);

    const metrics = await (await fetch(`${stack.url("payments")}/metrics`)).text();
    expect(metrics).toMatch(/payments_reconcile_differences_total\{kind="payment",action="applied"\} [1-9]/);
    // The scheduled job (RECONCILE_INTERVAL) runs besides: its count grows by itself.
    const runs = async () => Number(/^payments_reconcile_runs_total (\d+)/m.exec(await (await fetch(`${stack.url("payments")}/metrics`)).text())?.[1] ?? 0);
    const before = await runs();
    await eventually(async () => (await runs()) >= before + 2);
    own.receiver.stop();
  });
});
