import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Receipt, ReceiptList, rpcs } from "@payaccept/contracts";
import { ENGINES } from "./harness/engines.ts";
import { eventually, Stack } from "./harness/stack.ts";
import { createShop, type TestShop } from "./payments-fixtures.ts";
import { createWithReceipt, paySandbox, receiptRequest, receiptsOf, registered, setRegister } from "./receipts-fixtures.ts";

/**
 * A receipt whose attempts run out is visible as FAILED, and an operator resends it
 * (docs/receipts.md): once on the receipts' SQLite file, once on PostgreSQL (RECEIPTS_DATABASE_URL).
 */
setDefaultTimeout(120_000);

describe.each(ENGINES)("receipts on %s", (engine) => {
  let stack: Stack;
  let shop: TestShop;

  beforeAll(async () => {
    stack = await Stack.start({
      services: ["directory", "payments", "gateway", "receipts", "cash-register-emulator"],
      env: { RECEIPTS_RETRY_BASE: "50ms", RECEIPTS_RETRY_CAP: "100ms", RECEIPTS_MAX_ATTEMPTS: "3", CASH_REGISTER_DELAY: "0ms" },
      postgres: engine === "postgres",
    });
    shop = await createShop(stack, { sandbox: true });
  });
  afterAll(() => stack?.stop());

  const failed = (paymentId: string) =>
    eventually(async () => {
      const [r] = await receiptsOf(stack, shop.shopId, paymentId);
      return r?.status === "FAILED" ? r : null;
    }, 30_000);

  test("a receipt the register never takes ends FAILED with its last error, and receipt:resend registers it once the register is back", async () => {
    await setRegister(stack, { mode: "down", delayMs: 0 });
    const payment = await createWithReceipt(stack, shop.shopId);
    await paySandbox(stack, payment);
    const exhausted = await failed(payment.id);
    expect(exhausted).toMatchObject({
      kind: "SALE",
      attempts: 3,
      fiscal: null,
      lastError: "register answered 503",
      lastErrorCode: "REGISTER_HTTP_STATUS",
      lastErrorParams: { httpStatus: 503 },
    });
    const metrics = await (await fetch(`${stack.url("receipts")}/metrics`)).text();
    expect(metrics).toContain('receipts_by_status{status="FAILED"} 1');
    const viaApi = ReceiptList.parse(await (await stack.api(shop.apiKey, `/v1/payments/${payment.id}/receipts`)).json());
    expect(viaApi.items).toEqual([exhausted]);

    // Resending anything but a FAILED receipt, or another shop's, is refused.
    const other = await createShop(stack, { sandbox: true });
    await expect(stack.call(rpcs.receipts.resend, { id: exhausted.id, shopId: other.shopId })).rejects.toMatchObject({ code: "NOT_FOUND" });

    await setRegister(stack, { mode: "normal", delayMs: 0 });
    const r = await stack.admin(["receipt:resend", "--receipt", exhausted.id, "--json"]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(Receipt.parse(JSON.parse(r.stdout))).toMatchObject({ id: exhausted.id, status: "PENDING", attempts: 0 });
    const [sale] = await registered(stack, shop.shopId, payment.id);
    expect(sale).toMatchObject({ id: exhausted.id, status: "REGISTERED", lastError: null, lastErrorCode: null, fiscal: { documentNumber: 1 } });
    const again = await stack.admin(["receipt:resend", "--receipt", exhausted.id]);
    expect(again).toMatchObject({ code: 1, stderr: "error: CONFLICT: the receipt is REGISTERED; only a FAILED receipt can be resent\n" });
  });

  test("a receipt the tax service refuses (customer fail@…) is retried, then FAILED with the refusal as its last error", async () => {
    const payment = await createWithReceipt(stack, shop.shopId, { receipt: receiptRequest({ email: "fail@example.com" }) });
    await paySandbox(stack, payment);
    expect(await failed(payment.id)).toMatchObject({ attempts: 3, fiscal: null, lastErrorCode: "RECEIPT_REFUSED_BY_REGISTER", lastError: expect.stringContaining("refused by the register") });
    const list = await stack.admin(["receipt:list", "--payment", payment.id, "--json"]);
    expect(ReceiptList.parse(JSON.parse(list.stdout)).items.map((i) => i.status)).toEqual(["FAILED"]);
  });
});
