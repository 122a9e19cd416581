import { afterAll, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ErrorBody, rpcs, type CreatePaymentInput, type Payment, type Receipt } from "@payaccept/contracts";
import { FakeAtol, type FakeAtolDocument } from "./harness/atol-fake.ts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { eventually, freePort, Stack } from "./harness/stack.ts";
import { BankApp, createShop, type TestShop } from "./payments-fixtures.ts";
import { createWithReceipt, paySandbox, receiptRequest, receiptsOf, registered } from "./receipts-fixtures.ts";

/**
 * Receipts registered through АТОЛ Онлайн (RECEIPTS_REGISTER=atol, docs/receipts.md "АТОЛ Онлайн"):
 * the real receipts service, payments, the acquirer emulator and NATS, against the fake АТОЛ
 * (tests/harness/atol-fake.ts, written from АТОЛ's documentation), which the service reaches over
 * HTTP and which posts its callbacks to the service's /atol/callback. Once on SQLite, once with
 * every store on PostgreSQL. What each of АТОЛ's errors becomes is atol-register.test.ts.
 */
setDefaultTimeout(120_000);

const ACCOUNT = { login: "v5-payaccept", pass: "atol-password-in-the-secrets-file", groupCode: "payaccept_5179", inn: "5544332219" };
/** Callbacks come within milliseconds here; polling starts after this, so each case knows which brought the result. */
const CALLBACK_WAIT = "5s";

describe.each(ENGINES)("receipts through АТОЛ on %s", (engine) => {
  let fake: FakeAtol;
  let stack: Stack;
  let live: TestShop;
  let dir: string;

  beforeAll(async () => {
    fake = new FakeAtol([ACCOUNT], { processingMs: 50 });
    dir = mkdtempSync(join(tmpdir(), "atol-secrets-"));
    const secrets = join(dir, "atol.json");
    writeFileSync(secrets, JSON.stringify({ ATOL_PASSWORD: ACCOUNT.pass }));
    const receiptsPort = await freePort();
    stack = await Stack.start({
      services: ["directory", "payments", "balance", "acquirer-emulator", "receipts", "cash-register-emulator"],
      postgres: engine === "postgres",
      env: {
        RECEIPTS_PORT: String(receiptsPort),
        RECEIPTS_REGISTER: "atol",
        ATOL_BASE_URL: fake.baseUrl,
        ATOL_SECRETS_FILE: secrets,
        ATOL_LOGIN: ACCOUNT.login,
        ATOL_GROUP_CODE: ACCOUNT.groupCode,
        ATOL_COMPANY_INN: ACCOUNT.inn,
        ATOL_COMPANY_SNO: "usn_income,osn",
        ATOL_COMPANY_PAYMENT_ADDRESS: "https://coffee.example",
        ATOL_COMPANY_EMAIL: "receipts@coffee.example",
        ATOL_CALLBACK_URL: `http://127.0.0.1:${receiptsPort}/atol/callback`,
        ATOL_CALLBACK_WAIT: CALLBACK_WAIT,
        RECEIPTS_RETRY_BASE: "50ms",
        RECEIPTS_RETRY_CAP: "200ms",
        RECEIPTS_MAX_ATTEMPTS: "1000",
        CASH_REGISTER_DELAY: "0ms",
      },
    });
    live = await createShop(stack, { sandbox: false, methods: ["SBP"] });
  });
  afterAll(async () => {
    await stack?.stop();
    fake?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    fake.callbacks = "on";
    fake.hold = false;
  });

  /** A live SBP payment with a receipt, paid in the bank app. */
  async function payLive(request: Partial<CreatePaymentInput> = {}): Promise<Payment> {
    const payment = await createWithReceipt(stack, live.shopId, request);
    const view = await stack.call(rpcs.payments.start, { id: payment.id, method: "SBP" });
    await new BankApp(stack).sbp(view.sbp!.qrPayload, "pay");
    await eventually(async () => (await stack.call(rpcs.payments.get, { shopId: live.shopId, id: payment.id })).status === "SUCCESS", 30_000);
    return payment;
  }

  /** The payment's one receipt once АТОЛ has taken a document for it. */
  const sentToAtol = (payment: Payment) =>
    eventually(async () => {
      const [r] = await receiptsOf(stack, live.shopId, payment.id);
      return r && fake.documentsOf(r.id).length > 0 ? { receipt: r, doc: fake.documentsOf(r.id)[0]! } : null;
    }, 30_000);

  const failed = (payment: Payment) =>
    eventually(async () => {
      const [r] = await receiptsOf(stack, live.shopId, payment.id);
      return r?.status === "FAILED" ? r : null;
    }, 30_000);

  const callbacksOf = (doc: FakeAtolDocument, count = 1) => eventually(() => (doc.callbacks.length >= count ? doc.callbacks : null));

  const fiscalOf = (doc: FakeAtolDocument) => ({
    documentNumber: doc.payload!.fiscal_document_number as number,
    fiscalSign: String(doc.payload!.fiscal_document_attribute),
    driveNumber: doc.payload!.fn_number as string,
    registeredAt: expect.stringMatching(/Z$/) as unknown as string,
  });

  test("a sale and a partial refund go to АТОЛ as sell and sell_refund, FFD 1.2 receipts with the seller, and are registered by АТОЛ's callbacks", async () => {
    const request = receiptRequest({ email: "buyer@example.com" });
    const payment = await payLive({ receipt: { ...request, items: request.items.map((item, i) => (i === 1 ? { ...item, measure: "liter" as const } : item)) } });
    const [sale] = await registered(stack, live.shopId, payment.id);
    const [sell] = fake.documentsOf(sale!.id);
    expect(sell).toMatchObject({ operation: "sell", externalId: sale!.id, status: "done", groupCode: ACCOUNT.groupCode });
    expect(sell!.body.receipt).toEqual({
      client: { email: "buyer@example.com" },
      company: { email: "receipts@coffee.example", sno: "usn_income", inn: ACCOUNT.inn, payment_address: "https://coffee.example" },
      items: [
        { name: "Кофе в зёрнах, 1 кг", price: 333, quantity: 2, measure: 0, sum: 666, payment_method: "full_payment", payment_object: 1, vat: { type: "vat22" } },
        { name: "Сироп, л", price: 100, quantity: 1.5, measure: 41, sum: 150, payment_method: "full_prepayment", payment_object: 1, vat: { type: "vat122" } },
        { name: "Пакет", price: 0.01, quantity: 1, measure: 0, sum: 0.01, payment_method: "full_payment", payment_object: 13, vat: { type: "none" } },
      ],
      payments: [{ type: 1, sum: 816.01 }],
      total: 816.01,
    });
    expect(sale).toMatchObject({ status: "REGISTERED", isTest: false, fiscal: fiscalOf(sell!), lastError: null });
    expect(await callbacksOf(sell!)).toEqual([{ status: 200, body: { result: "registered" } }]);

    const refund = await stack.call(rpcs.payments.refund, { shopId: live.shopId, id: payment.id, amountKopecks: 30_000 });
    const [, back] = await registered(stack, live.shopId, payment.id, 2);
    expect(back).toMatchObject({ kind: "REFUND", refundId: refund.id, amountKopecks: 30_000 });
    const [sellRefund] = fake.documentsOf(back!.id);
    expect(sellRefund).toMatchObject({ operation: "sell_refund", status: "done", body: { receipt: { total: 300, payments: [{ type: 1, sum: 300 }], company: { inn: ACCOUNT.inn, sno: "usn_income" } } } });
    expect(sellRefund!.body.receipt.items.map((i: { sum: number; measure: number }) => [i.sum, i.measure])).toEqual(back!.items.map((i) => [i.amountKopecks / 100, i.measure === "liter" ? 41 : 0]));
    expect(back!.fiscal).toEqual(fiscalOf(sellRefund!));
    expect(await callbacksOf(sellRefund!)).toEqual([{ status: 200, body: { result: "registered" } }]);
  });

  test("a document АТОЛ fails (it waited too long in the queue) is followed by a new one, which is registered", async () => {
    fake.failNext({ code: 1, text: "Превышено время ожидания чека в очереди.", type: "timeout" });
    const payment = await payLive();
    const [sale] = await registered(stack, live.shopId, payment.id);
    const docs = fake.documentsOf(sale!.id);
    expect(docs.map((d) => [d.externalId, d.status])).toEqual([
      [sale!.id, "fail"],
      [`${sale!.id}.1`, "done"],
    ]);
    expect(sale).toMatchObject({ status: "REGISTERED", fiscal: fiscalOf(docs[1]!), lastErrorCode: null });
    expect(await callbacksOf(docs[0]!)).toEqual([{ status: 200, body: { result: "retrying" } }]);
    expect(await callbacksOf(docs[1]!)).toEqual([{ status: 200, body: { result: "registered" } }]);
  });

  test("a callback posted twice registers the receipt once: the second finds it registered and changes nothing", async () => {
    fake.callbacks = "twice";
    const payment = await payLive();
    const [sale] = await registered(stack, live.shopId, payment.id);
    const [doc] = fake.documentsOf(sale!.id);
    expect(await callbacksOf(doc!, 2)).toEqual([
      { status: 200, body: { result: "registered" } },
      { status: 200, body: { result: "unchanged" } },
    ]);
    // Only the first asked АТОЛ for the document's state.
    expect(doc!.reports).toBe(1);
    expect(await receiptsOf(stack, live.shopId, payment.id)).toEqual([sale!]);
  });

  test("refused, a person must act: the register refuses the document (driver), the receipt is FAILED at once; receipt:list --failed shows it, and once the cause is dealt with receipt:resend --failed registers a new document", async () => {
    fake.failNext({ code: 231, text: "Некорректное значение реквизита", type: "driver" });
    const payment = await payLive();
    const refused = await failed(payment);
    expect(refused).toMatchObject({
      status: "FAILED",
      fiscal: null,
      lastErrorCode: "REGISTER_REFUSED",
      lastErrorParams: { code: 231, type: "driver", text: "Некорректное значение реквизита" },
      lastError: "the register refused it, a person must act: error 231 (driver): Некорректное значение реквизита",
    });
    expect(stack.log("receipts")).toContain("receipt refused by the register; a person must act, then resend it");
    const metrics = await (await fetch(`${stack.url("receipts")}/metrics`)).text();
    expect(metrics).toMatch(/receipts_by_status\{status="FAILED"\} [1-9]/);

    // The operator's list of what needs them names it, with why.
    const list = await stack.admin(["receipt:list", "--failed", "--reason", "REGISTER_REFUSED", "--json"]);
    expect(list).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(list.stdout)).toEqual({
      items: [
        {
          id: refused.id,
          shopId: live.shopId,
          paymentId: payment.id,
          refundId: null,
          kind: "SALE",
          amountKopecks: refused.amountKopecks,
          taxation: "usn_income",
          attempts: refused.attempts,
          lastError: refused.lastError,
          lastErrorCode: "REGISTER_REFUSED",
          lastErrorParams: refused.lastErrorParams,
          createdAt: refused.createdAt,
          failedAt: expect.any(String),
        },
      ],
    });
    const resent = await stack.admin(["receipt:resend", "--failed", "--reason", "REGISTER_REFUSED", "--json"]);
    expect(resent).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(resent.stdout)).toEqual({ resent: [refused.id], notResent: [] });
    const [sale] = await registered(stack, live.shopId, payment.id);
    expect(fake.documentsOf(refused.id).map((d) => [d.externalId, d.status])).toEqual([
      [refused.id, "fail"],
      [`${refused.id}.1`, "done"],
    ]);
    expect(sale).toMatchObject({ id: refused.id, status: "REGISTERED", lastErrorCode: null });
  });

  // The token, the callback's checks, the polling fallback and the sandbox's register are the
  // service's own logic over the same store writes the cases above make on both engines.
  sqliteRunOnly(engine, () => {
    test("an expired token: АТОЛ refuses the call (11), a new token is obtained and the document sent with it", async () => {
      const tokens = fake.getTokenCalls;
      const refusals = fake.tokenRefusals.length;
      fake.expireTokens();
      const payment = await payLive();
      await registered(stack, live.shopId, payment.id);
      expect(fake.tokenRefusals.slice(refusals)).toEqual([{ code: 11, path: `${ACCOUNT.groupCode}/sell` }]);
      expect(fake.getTokenCalls).toBe(tokens + 1);
      expect(fake.calls.filter((c) => c.path !== "getToken").every((c) => c.tokenHeader)).toBe(true);
      expect(stack.log("receipts")).not.toContain(ACCOUNT.pass);
    });

    test("a forged callback (a made-up result for a document АТОЛ is still processing) changes nothing; АТОЛ's own callback then registers it", async () => {
      fake.hold = true;
      const payment = await payLive();
      const { receipt, doc } = await sentToAtol(payment);
      const post = (body: string) => fetch(`${stack.url("receipts")}/atol/callback`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
      const forged = { uuid: doc.uuid, external_id: receipt.id, status: "done", error: null, payload: { fiscal_document_number: 999_999, fiscal_document_attribute: 1, fn_number: "0000000000000000", receipt_datetime: "01.01.2026 00:00:00", total: 816.01 } };
      const res = await post(JSON.stringify(forged));
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { result: "unchanged" } });
      expect((await receiptsOf(stack, live.shopId, payment.id))[0]).toMatchObject({ status: "PENDING", fiscal: null });
      const notOne = await post(JSON.stringify({ status: "done" }));
      expect(notOne.status).toBe(400);
      expect(ErrorBody.parse(await notOne.json()).error).toBe("Bad Request");
      expect((await post("not json")).status).toBe(400);

      expect(await fake.finish(doc.uuid)).toEqual([{ status: 200, body: { result: "registered" } }]);
      const [sale] = await receiptsOf(stack, live.shopId, payment.id);
      expect(sale).toMatchObject({ status: "REGISTERED", fiscal: fiscalOf(doc) });
      expect(sale!.fiscal!.documentNumber).not.toBe(999_999);
    });

    test("when АТОЛ's callback never comes, the document's report is polled and registers it", async () => {
      fake.callbacks = "off";
      const payment = await payLive();
      const [sale] = await registered(stack, live.shopId, payment.id);
      const [doc] = fake.documentsOf(sale!.id);
      expect(doc!.callbacks).toEqual([]);
      expect(doc!.reports).toBeGreaterThanOrEqual(1);
      expect(sale).toMatchObject({ status: "REGISTERED", fiscal: fiscalOf(doc!) });
    });

    test("a receipt under a taxation system the registers are not registered for is FAILED at once, before anything reaches АТОЛ", async () => {
      const payment = await payLive({ receipt: { ...receiptRequest(), taxation: "patent" } });
      const r: Receipt = await failed(payment);
      expect(r).toMatchObject({ attempts: 1, lastErrorCode: "RECEIPT_TAXATION_NOT_REGISTERED", lastErrorParams: { taxation: "patent" } });
      expect(fake.documentsOf(r.id)).toEqual([]);
    });

    test("a sandbox payment's receipt goes to the cash register emulator, never to АТОЛ", async () => {
      const sandbox = await createShop(stack, { sandbox: true });
      const payment = await createWithReceipt(stack, sandbox.shopId);
      await paySandbox(stack, payment);
      const [r] = await registered(stack, sandbox.shopId, payment.id);
      expect(r).toMatchObject({ isTest: true, status: "REGISTERED" });
      expect(fake.documentsOf(r!.id)).toEqual([]);
    });
  });
});
