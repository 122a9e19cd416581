import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { ErrorBody, PAYMENTS_STREAM, paymentEventSubject, ReceiptList, rpcs, type Payment, type Receipt } from "@payaccept/contracts";
import { createClient } from "../packages/sdk/src/index.ts";
import { DashboardClient, text, uniqueEmail } from "./dashboard-client.ts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { eventually, Stack } from "./harness/stack.ts";
import { BankApp, createShop, type TestShop } from "./payments-fixtures.ts";
import { createWithReceipt, paySandbox, RECEIPT_AMOUNT, receiptRequest, receiptsOf, registered, setRegister } from "./receipts-fixtures.ts";

/**
 * Fiscal receipts through the real pieces: payments (receipt stored with the payment, carried in
 * its events), the PAYMENTS stream, the receipts service and the cash register emulator, the
 * gateway's API. docs/receipts.md. Once on SQLite, once with every store on PostgreSQL.
 */
setDefaultTimeout(120_000);

describe.each(ENGINES)("receipts on %s", (engine) => {
  let stack: Stack;
  let sandbox: TestShop;
  let live: TestShop;
  /** Every payment of this file that should end with registered receipts: their document numbers must be 1..N without a gap. */
  const paidHere: { shopId: string; paymentId: string }[] = [];

  beforeAll(async () => {
    stack = await Stack.start({
      services: ["directory", "dashboard", "payments", "acquirer-emulator", "gateway", "paypage", "receipts", "cash-register-emulator"],
      postgres: engine === "postgres",
      env: { TRUSTED_PROXIES: "127.0.0.1", RECEIPTS_RETRY_BASE: "100ms", RECEIPTS_RETRY_CAP: "300ms", RECEIPTS_MAX_ATTEMPTS: "1000", CASH_REGISTER_DELAY: "100ms", CASH_REGISTER_TIMEOUT: "2s" },
    });
    sandbox = await createShop(stack, { sandbox: true });
    live = await createShop(stack, { sandbox: false, methods: ["SBP"] });
  });
  afterAll(() => stack?.stop());

  const expectedSaleItems = [
    { name: "Кофе в зёрнах, 1 кг", quantity: 2, priceKopecks: 33_300, amountKopecks: 66_600, vat: "vat22", paymentSubject: "commodity", paymentMode: "full_payment" },
    { name: "Сироп, л", quantity: 1.5, priceKopecks: 10_000, amountKopecks: 15_000, vat: "vat122", paymentSubject: "commodity", paymentMode: "full_prepayment" },
    { name: "Пакет", quantity: 1, priceKopecks: 1, amountKopecks: 1, vat: "none", paymentSubject: "another", paymentMode: "full_payment" },
  ];

  function expectRegisteredSale(r: Receipt, payment: Payment) {
    expect(r).toMatchObject({ paymentId: payment.id, kind: "SALE", status: "REGISTERED", amountKopecks: RECEIPT_AMOUNT, refundId: null, taxation: "usn_income", items: expectedSaleItems });
    expect(r.fiscal).toMatchObject({ documentNumber: expect.any(Number), fiscalSign: expect.stringMatching(/^\d+$/), driveNumber: expect.stringMatching(/^\d{16}$/) });
  }

  describe("creation", () => {
    // Refused by payments' checks before anything is written.
    sqliteRunOnly(engine, () => {
      test("a bad receipt is a 400 listing every problem at once", async () => {
        const res = await stack.api(live.apiKey, "/v1/payments", {
          method: "POST",
          json: {
            orderId: "bad-receipt",
            amountKopecks: 10_000,
            receipt: {
              customer: { phone: "89001234567" },
              taxation: "envd",
              items: [
                { name: "x".repeat(129), quantity: 0.0001, priceKopecks: 100, vat: "vat18" },
                { name: "Доставка", quantity: 1, priceKopecks: -1, paymentSubject: "goods", paymentMode: "later" },
              ],
            },
          },
        });
        expect(res.status).toBe(400);
        const body = ErrorBody.parse(await res.json());
        expect(body.statusCode).toBe(400);
        const problems = (body.message as string[]).map((m) => m.split(":")[0]);
        expect(problems).toEqual([
          "receipt.customer.phone",
          "receipt.taxation",
          "receipt.items.0.name",
          "receipt.items.0.quantity",
          "receipt.items.0.vat",
          "receipt.items.1.priceKopecks",
          "receipt.items.1.paymentSubject",
          "receipt.items.1.paymentMode",
        ]);
      });

      test("items that do not add up to the amount are a 400 naming the rule", async () => {
        const res = await stack.api(live.apiKey, "/v1/payments", { method: "POST", json: { orderId: "sum", amountKopecks: RECEIPT_AMOUNT + 1, receipt: receiptRequest() } });
        expect(res.status).toBe(400);
        expect((await res.json()).message).toEqual(["receipt.items: the items (price × quantity, each rounded to a kopeck) must add up to amountKopecks exactly"]);
      });
    });

    test("a shop that requires receipts refuses a payment without one; its defaults fill taxation and VAT", async () => {
      const shop = await createShop(stack, { sandbox: true });
      await stack.call(rpcs.directory.updateShop, { shopId: shop.shopId, receipts: { required: true, taxation: "osn", vat: "vat20" } });
      const refused = await eventually(async () => {
        const res = await stack.api(shop.apiKey, "/v1/payments", { method: "POST", json: { orderId: "no-receipt", amountKopecks: 10_000 } });
        return res.status === 400 ? await res.json() : null;
      });
      expect(refused.message).toEqual(["receipt: required: the shop issues a fiscal receipt for every payment"]);

      const payment = await createWithReceipt(stack, shop.shopId, {
        amountKopecks: 10_000,
        receipt: { customer: { phone: "+79001234567" }, items: [{ name: "Чай", quantity: 1, priceKopecks: 10_000 }] },
      });
      await paySandbox(stack, payment);
      paidHere.push({ shopId: shop.shopId, paymentId: payment.id });
      const [sale] = await registered(stack, shop.shopId, payment.id);
      expect(sale).toMatchObject({ taxation: "osn", customer: { phone: "+79001234567" }, items: [{ name: "Чай", vat: "vat20", paymentSubject: "commodity", paymentMode: "full_payment" }] });
    });
  });

  describe("sale receipts", () => {
    test("a paid sandbox payment has exactly one registered sale receipt, through the API too, also after its event is delivered twice", async () => {
      const payment = await createWithReceipt(stack, sandbox.shopId);
      await paySandbox(stack, payment);
      paidHere.push({ shopId: sandbox.shopId, paymentId: payment.id });
      const [sale] = await registered(stack, sandbox.shopId, payment.id);
      expectRegisteredSale(sale!, payment);
      expect(sale!.isTest).toBe(true);

      // The same event again under another message id (as after the stream's duplicate window): still one receipt.
      const jsm = await jetstreamManager(stack.nc);
      const stored = await jsm.streams.getMessage(PAYMENTS_STREAM, { last_by_subj: paymentEventSubject("SUCCESS") });
      expect(stored?.json<{ paymentId: string }>().paymentId).toBe(payment.id);
      const h = natsHeaders();
      h.set("Nats-Msg-Id", `${payment.id}:SUCCESS:again`);
      const { seq } = await jetstream(stack.nc).publish(stored!.subject, stored!.data, { headers: h });
      await eventually(async () => (await jsm.consumers.info(PAYMENTS_STREAM, "receipts")).delivered.stream_seq >= seq);
      await eventually(async () => (await jsm.consumers.info(PAYMENTS_STREAM, "receipts")).num_ack_pending === 0);
      expect(await receiptsOf(stack, sandbox.shopId, payment.id)).toEqual([sale!]);

      const res = await stack.api(sandbox.apiKey, `/v1/payments/${payment.id}/receipts`);
      expect(res.status).toBe(200);
      expect(ReceiptList.parse(await res.json())).toEqual({ items: [sale!] });
      expect(await createClient({ baseUrl: stack.gateway, apiKey: sandbox.apiKey }).listReceipts(payment.id)).toEqual({ items: [sale!] });

      // The buyer's success page says where the receipt goes, masked.
      const page = await (await fetch(`${stack.url("paypage")}/pay/${payment.id}`)).text();
      expect(page).toContain("Кассовый чек придёт на b•••@example.com.");
    });

    test("a live SBP payment paid late, after a decline, has exactly one registered sale receipt", async () => {
      const payment = await createWithReceipt(stack, live.shopId, { receipt: receiptRequest({ phone: "+79001112233" }) });
      const view = await stack.call(rpcs.payments.start, { id: payment.id, method: "SBP" });
      const bank = new BankApp(stack);
      await bank.sbp(view.sbp!.qrPayload, "decline");
      await eventually(async () => (await stack.call(rpcs.payments.get, { shopId: live.shopId, id: payment.id })).status === "FAILED", 30_000);
      await bank.sbp(view.sbp!.qrPayload, "pay");
      await eventually(async () => (await stack.call(rpcs.payments.get, { shopId: live.shopId, id: payment.id })).status === "SUCCESS", 30_000);
      paidHere.push({ shopId: live.shopId, paymentId: payment.id });
      const [sale] = await registered(stack, live.shopId, payment.id);
      expectRegisteredSale(sale!, payment);
      expect(sale).toMatchObject({ isTest: false, customer: { phone: "+79001112233" } });
    });

    // An empty list and a 404: reads the other cases already make.
    sqliteRunOnly(engine, () => {
      test("a payment without a receipt has none, and another shop's payment is a 404", async () => {
        const payment = await stack.call(rpcs.payments.create, { shopId: sandbox.shopId, request: { orderId: `plain-${Bun.randomUUIDv7()}`, amountKopecks: 10_000 } });
        await paySandbox(stack, payment);
        const res = await stack.api(sandbox.apiKey, `/v1/payments/${payment.id}/receipts`);
        expect(await res.json()).toEqual({ items: [] });
        expect((await stack.api(live.apiKey, `/v1/payments/${payment.id}/receipts`)).status).toBe(404);
      });
    });
  });

  describe("refund receipts", () => {
    test("a partial refund gets a refund receipt for its amount; the last refund and the REFUNDED event that follows it make one more, not two", async () => {
      const payment = await createWithReceipt(stack, sandbox.shopId);
      await paySandbox(stack, payment);
      paidHere.push({ shopId: sandbox.shopId, paymentId: payment.id });
      const [sale] = await registered(stack, sandbox.shopId, payment.id);

      const partial = await stack.call(rpcs.payments.refund, { shopId: sandbox.shopId, id: payment.id, amountKopecks: 30_000 });
      expect(partial.status).toBe("SUCCEEDED");
      const [, first] = await registered(stack, sandbox.shopId, payment.id, 2);
      // 30 000 of 81 601 spread over the lines by what each has left, the leftover kopecks to the largest remainders.
      expect(first).toMatchObject({
        kind: "REFUND",
        refundId: partial.id,
        amountKopecks: 30_000,
        customer: sale!.customer,
        items: [
          { ...expectedSaleItems[0], quantity: 1, priceKopecks: 24_485, amountKopecks: 24_485 },
          { ...expectedSaleItems[1], quantity: 1, priceKopecks: 5_515, amountKopecks: 5_515 },
        ],
      });

      const rest = await stack.call(rpcs.payments.refund, { shopId: sandbox.shopId, id: payment.id });
      expect(rest).toMatchObject({ status: "SUCCEEDED", amountKopecks: RECEIPT_AMOUNT - 30_000 });
      await eventually(async () => (await stack.call(rpcs.payments.get, { shopId: sandbox.shopId, id: payment.id })).status === "REFUNDED");
      const [, , second] = await registered(stack, sandbox.shopId, payment.id, 3);
      expect(second).toMatchObject({ kind: "REFUND", refundId: rest.id, amountKopecks: RECEIPT_AMOUNT - 30_000 });
      expect(second!.items.map((i) => i.amountKopecks)).toEqual([66_600 - 24_485, 15_000 - 5_515, 1]);

      // Once the consumer has taken every event (the REFUNDED one included), still three receipts.
      const jsm = await jetstreamManager(stack.nc);
      await eventually(async () => {
        const info = await jsm.consumers.info(PAYMENTS_STREAM, "receipts");
        return info.num_pending === 0 && info.num_ack_pending === 0;
      });
      expect((await receiptsOf(stack, sandbox.shopId, payment.id)).map((r) => [r.kind, r.amountKopecks])).toEqual([
        ["SALE", RECEIPT_AMOUNT],
        ["REFUND", 30_000],
        ["REFUND", RECEIPT_AMOUNT - 30_000],
      ]);
    });
  });

  describe("order", () => {
    test("a refund made while the sale receipt is still on its way is registered after it", async () => {
      await setRegister(stack, { mode: "down", delayMs: 100 });
      const payment = await createWithReceipt(stack, sandbox.shopId);
      await paySandbox(stack, payment);
      paidHere.push({ shopId: sandbox.shopId, paymentId: payment.id });
      await stack.call(rpcs.payments.refund, { shopId: sandbox.shopId, id: payment.id, amountKopecks: 10_000 });
      await eventually(async () => (await receiptsOf(stack, sandbox.shopId, payment.id)).length === 2, 30_000);
      await setRegister(stack, { mode: "normal", delayMs: 100 });
      const [sale, refund] = await registered(stack, sandbox.shopId, payment.id, 2);
      expect(refund!.fiscal!.documentNumber).toBeGreaterThan(sale!.fiscal!.documentNumber);
      expect(Date.parse(refund!.fiscal!.registeredAt)).toBeGreaterThanOrEqual(Date.parse(sale!.fiscal!.registeredAt));
    });
  });

  describe("dashboard", () => {
    test("the owner sets the shop's receipt settings; the payment shows its receipts and the CSV export has them", async () => {
      const merchant = DashboardClient.of(stack);
      await merchant.signUp(uniqueEmail("receipts"));
      const shop = await merchant.createShop("Чайная");
      const saved = await merchant.submit(`/shops/${shop.shopId}`, `/shops/${shop.shopId}/receipts`, { required: "on", taxation: "usn_income", vat: "vat22" });
      expect(saved.status).toBe(303);
      expect((await merchant.follow(saved)).html).toContain('<option value="vat22" selected="">22 %</option>');
      const refused = await eventually(async () => {
        const res = await stack.api(shop.apiKey, "/v1/payments", { method: "POST", json: { orderId: "no-receipt", amountKopecks: 10_000 } });
        return res.status === 400;
      });
      expect(refused).toBe(true);

      const payment = await createWithReceipt(stack, shop.shopId, { amountKopecks: 5_000, receipt: { customer: { email: "tea@example.com" }, items: [{ name: "Улун", quantity: 0.5, priceKopecks: 10_000 }] } });
      await paySandbox(stack, payment);
      paidHere.push({ shopId: shop.shopId, paymentId: payment.id });
      const [sale] = await registered(stack, shop.shopId, payment.id);
      expect(sale).toMatchObject({ taxation: "usn_income", items: [{ vat: "vat22", amountKopecks: 5_000 }] });

      const detail = text((await merchant.get(`/shops/${shop.shopId}/payments/${payment.id}`)).html);
      expect(detail).toContain("Фискальные чеки");
      expect(detail).toContain("Приход");
      expect(detail).toContain("Зарегистрирован");
      expect(detail).toContain(`${sale!.fiscal!.documentNumber} · ${sale!.fiscal!.fiscalSign} · ${sale!.fiscal!.driveNumber}`);
      expect(detail).toContain("tea@example.com");
      expect(detail).toContain("УСН доход");

      const csv = (await merchant.get(`/shops/${shop.shopId}/payments.csv`)).html.replace(/^\uFEFF/, "").trimEnd().split("\r\n");
      // The receipts column comes before the columns of holds and saved methods, empty for this payment.
      const header = csv[0]!.split(",");
      const after = header.length - 1 - header.indexOf("receipts");
      expect(after).toBeGreaterThan(0);
      expect(csv[1]!.startsWith(payment.id)).toBe(true);
      expect(csv[1]!.endsWith(`,SALE REGISTERED ФД ${sale!.fiscal!.documentNumber}${",".repeat(after)}`)).toBe(true);
    });
  });

  describe("failures", () => {
    test("a register down for a while and a receipts service killed mid-way lose nothing and double nothing", async () => {
      await setRegister(stack, { mode: "down", delayMs: 100 });
      const payments = await Promise.all([1, 2, 3].map(() => createWithReceipt(stack, sandbox.shopId)));
      for (const p of payments) await paySandbox(stack, p);
      paidHere.push(...payments.map((p) => ({ shopId: sandbox.shopId, paymentId: p.id })));
      // Each receipt has been tried and refused at least once.
      for (const p of payments) {
        await eventually(async () => {
          const [r] = await receiptsOf(stack, sandbox.shopId, p.id);
          return r && r.status === "PENDING" && r.attempts >= 1 && r.lastErrorCode === "REGISTER_HTTP_STATUS";
        }, 30_000);
      }
      await stack.kill("receipts");
      // Back up, but slow: the restarted service sends, is told "wait", and is killed again before it hears "done".
      await setRegister(stack, { mode: "normal", delayMs: 1500 });
      await stack.restart("receipts");
      await eventually(async () => {
        const [r] = await receiptsOf(stack, sandbox.shopId, payments[0]!.id);
        return r?.lastErrorCode === "RECEIPT_NOT_FISCALISED_YET";
      }, 30_000);
      await stack.kill("receipts");
      await setRegister(stack, { mode: "normal", delayMs: 100 });
      await stack.restart("receipts");
      for (const p of payments) expectRegisteredSale((await registered(stack, sandbox.shopId, p.id))[0]!, p);

      // Every registered receipt of this file is one fiscal document: numbers 1..N without gaps or repeats.
      const numbers: number[] = [];
      for (const { shopId, paymentId } of paidHere) for (const r of await receiptsOf(stack, shopId, paymentId)) numbers.push(r.fiscal!.documentNumber);
      expect(numbers.sort((a, b) => a - b)).toEqual(numbers.map((_, i) => i + 1));
    });
  });
});
