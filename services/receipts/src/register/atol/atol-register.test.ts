import { afterAll, describe, expect, test } from "bun:test";
import { createLogger } from "@payaccept/platform";
import { FakeAtol, type FakeAtolError } from "../../../../../tests/harness/atol-fake.ts";
import type { AtolAccountConfig } from "../../config.ts";
import { RegisterCallFailed, type FiscalDocument, type RegisterState } from "../port.ts";
import { atolRegister } from "./atol-register.ts";

/**
 * The АТОЛ connector against the fake АТОЛ (tests/harness/atol-fake.ts, written from АТОЛ's
 * documentation): what it sends, and what each of АТОЛ's errors becomes, a call to retry or a
 * refusal that needs a person. The flows through the whole stack are tests/receipts-atol.test.ts.
 */

const MAIN = { login: "main-login", pass: "main-pass", groupCode: "main-group_1", inn: "5544332219" };
const OWN = { login: "own-login", pass: "own-pass", groupCode: "own-group_2", inn: "7707329152" };
const fake = new FakeAtol([MAIN, OWN], { processingMs: 0 });
afterAll(() => fake.stop());

const account = (a: typeof MAIN, sno: AtolAccountConfig["ATOL_COMPANY_SNO"] = ["usn_income", "osn"]): AtolAccountConfig => ({
  ATOL_LOGIN: a.login,
  ATOL_PASSWORD: a.pass,
  ATOL_GROUP_CODE: a.groupCode,
  ATOL_COMPANY_INN: a.inn,
  ATOL_COMPANY_SNO: sno,
  ATOL_COMPANY_PAYMENT_ADDRESS: "https://shop.example",
  ATOL_COMPANY_EMAIL: "receipts@shop.example",
});

const port = (overrides: Partial<Parameters<typeof atolRegister>[0]> = {}) =>
  atolRegister({
    baseUrl: fake.baseUrl,
    account: account(MAIN),
    shops: { "own-shop": account(OWN, ["osn"]) },
    callbackUrl: undefined,
    callbackWaitMs: 0,
    tokenRenewAfterMs: 23 * 3_600_000,
    timeoutMs: 2000,
    log: createLogger("test", "silent"),
    ...overrides,
  });

const doc = (over: Partial<FiscalDocument> = {}): FiscalDocument => ({
  externalId: Bun.randomUUIDv7(),
  kind: "SALE",
  test: false,
  shopId: "shop-1",
  customer: { email: "buyer@example.com" },
  taxation: "usn_income",
  items: [
    { name: "Кофе в зёрнах", quantity: 0.75, priceKopecks: 133_300, amountKopecks: 99_975, vat: "vat22", paymentSubject: "commodity", paymentMode: "full_payment", measure: "kilogram" },
    { name: "Доставка", quantity: 1, priceKopecks: 25_001, amountKopecks: 25_001, vat: "vat122", paymentSubject: "service", paymentMode: "full_prepayment" },
  ],
  totalKopecks: 124_976,
  ...over,
});

/** Registers and asks until АТОЛ has decided (the fake processes at once). */
async function settle(p: ReturnType<typeof port>, d: FiscalDocument): Promise<RegisterState> {
  const first = await p.register(d);
  if (first.status !== "wait") return first;
  for (let i = 0; i < 50; i++) {
    const s = await p.state(first.documentId, d);
    if (s.status !== "wait") return s;
    await Bun.sleep(20);
  }
  throw new Error("АТОЛ never decided");
}

const refusal = (s: Promise<RegisterState>) => s.then(
  (state) => ({ answer: state.status === "fail" ? (state.needsPerson ? "needs a person" : "new document") : state.status, failure: state.status === "fail" ? state.failure : undefined }),
  (e: unknown) => {
    if (!(e instanceof RegisterCallFailed)) throw e;
    return { answer: "retry", failure: e.failure };
  },
);

describe("a document", () => {
  test("a sale goes out as АТОЛ's FFD 1.2 receipt with the Token header, and its report is the fiscal data", async () => {
    const p = port({ callbackUrl: "https://pay.example/atol/callback", callbackWaitMs: 30_000 });
    const d = doc({ customer: { email: "buyer@example.com", phone: "+79001112233" } });
    const accepted = await p.register(d);
    expect(accepted).toEqual({ documentId: expect.any(String), status: "wait", checkAfterMs: 30_000 });
    const [sent] = fake.documentsOf(d.externalId);
    expect(sent).toMatchObject({ operation: "sell", groupCode: MAIN.groupCode });
    expect(sent!.body).toEqual({
      timestamp: expect.stringMatching(/^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2}$/),
      external_id: d.externalId,
      service: { callback_url: "https://pay.example/atol/callback" },
      receipt: {
        client: { email: "buyer@example.com", phone: "+79001112233" },
        company: { email: "receipts@shop.example", sno: "usn_income", inn: MAIN.inn, payment_address: "https://shop.example" },
        items: [
          { name: "Кофе в зёрнах", price: 1333, quantity: 0.75, measure: 11, sum: 999.75, payment_method: "full_payment", payment_object: 1, vat: { type: "vat22" } },
          { name: "Доставка", price: 250.01, quantity: 1, measure: 0, sum: 250.01, payment_method: "full_prepayment", payment_object: 4, vat: { type: "vat122" } },
        ],
        payments: [{ type: 1, sum: 1249.76 }],
        total: 1249.76,
      },
    });
    // The timestamp is Moscow time, as АТОЛ reads it.
    const [dd, mm, yyyy, hh] = sent!.body.timestamp.split(/[. :]/).map(Number);
    expect(Math.abs(Date.UTC(yyyy, mm - 1, dd, hh) - 3 * 3_600_000 - Date.now())).toBeLessThan(3_600_000);
    const done = await settle(p, d);
    expect(done).toEqual({
      documentId: sent!.uuid,
      status: "done",
      fiscal: {
        documentNumber: sent!.payload!.fiscal_document_number as number,
        fiscalSign: String(sent!.payload!.fiscal_document_attribute),
        driveNumber: sent!.payload!.fn_number as string,
        registeredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/),
      },
    });
    expect(fake.calls.filter((c) => c.path !== "getToken").every((c) => c.tokenHeader)).toBe(true);
  });

  test("a refund is a sell_refund; a repeat of a document АТОЛ has (code 33) answers that document's state, not a second one", async () => {
    const p = port();
    const d = doc({ kind: "REFUND" });
    const first = await settle(p, d);
    expect(first.status).toBe("done");
    expect(await p.register(d)).toEqual(first);
    expect(fake.documentsOf(d.externalId).map((x) => x.operation)).toEqual(["sell_refund"]);
  });

  test("a shop with an account of its own is registered through it, under its INN; a taxation system its registers lack is refused before anything is sent", async () => {
    const p = port();
    const d = doc({ shopId: "own-shop", taxation: "osn" });
    expect((await settle(p, d)).status).toBe("done");
    expect(fake.documentsOf(d.externalId)[0]).toMatchObject({ groupCode: OWN.groupCode, body: { receipt: { company: { inn: OWN.inn, sno: "osn" } } } });
    const usn = doc({ shopId: "own-shop", taxation: "usn_income" });
    expect(await refusal(p.register(usn))).toEqual({ answer: "needs a person", failure: { reason: "RECEIPT_TAXATION_NOT_REGISTERED", params: { taxation: "usn_income" } } });
    expect(fake.documentsOf(usn.externalId)).toEqual([]);
  });

  test("the INN the register's fiscal drive does not have: the register refuses the document, a person must act", async () => {
    const p = atolRegister({ baseUrl: fake.baseUrl, account: { ...account(MAIN), ATOL_COMPANY_INN: OWN.inn }, shops: {}, callbackUrl: undefined, callbackWaitMs: 0, tokenRenewAfterMs: 3_600_000, timeoutMs: 2000, log: createLogger("test", "silent") });
    expect(await refusal(settle(p, doc()))).toMatchObject({ answer: "needs a person", failure: { reason: "REGISTER_REFUSED", params: { code: 1, type: "driver" } } });
  });
});

describe("the token", () => {
  test("one getToken serves calls until АТОЛ says it expired (code 11); then a new one is obtained and the call made again", async () => {
    const p = port();
    await settle(p, doc());
    const before = fake.getTokenCalls;
    await settle(p, doc());
    expect(fake.getTokenCalls).toBe(before);
    fake.expireTokens();
    const refusals = fake.tokenRefusals.length;
    expect((await settle(p, doc())).status).toBe("done");
    expect(fake.getTokenCalls).toBe(before + 1);
    expect(fake.tokenRefusals.slice(refusals)).toEqual([{ code: 11, path: `${MAIN.groupCode}/sell` }]);
  });

  test("calls at once on a fresh connector share one getToken", async () => {
    const p = port();
    const before = fake.getTokenCalls;
    const states = await Promise.all([doc(), doc(), doc(), doc()].map((d) => settle(p, d)));
    expect(states.map((s) => s.status)).toEqual(["done", "done", "done", "done"]);
    expect(fake.getTokenCalls).toBe(before + 1);
  });

  test("a token is renewed before it gets old, without АТОЛ having to refuse it", async () => {
    const p = port({ tokenRenewAfterMs: 1 });
    const before = fake.getTokenCalls;
    const refusals = fake.tokenRefusals.length;
    await settle(p, doc());
    await Bun.sleep(5);
    await settle(p, doc());
    expect(fake.getTokenCalls).toBeGreaterThanOrEqual(before + 2);
    expect(fake.tokenRefusals.length).toBe(refusals);
  });

  test("a wrong password (code 12) is a refusal that needs a person, and the password never leaves in a log line", async () => {
    const lines: string[] = [];
    const log = createLogger("test", "debug", { write: (l: string) => void lines.push(l) });
    const p = atolRegister({ baseUrl: fake.baseUrl, account: { ...account(MAIN), ATOL_PASSWORD: "not-the-pass" }, shops: {}, callbackUrl: undefined, callbackWaitMs: 0, tokenRenewAfterMs: 3_600_000, timeoutMs: 2000, log });
    expect(await refusal(p.register(doc()))).toMatchObject({ answer: "needs a person", failure: { reason: "REGISTER_REFUSED", params: { code: 12, type: "system" } } });
    expect(lines.join("\n")).not.toContain("not-the-pass");
  });
});

describe("АТОЛ's errors: retry, or refused and a person must act", () => {
  /** Every code of АТОЛ's table of service errors as the reply to a registration, and what the receipt makes of it. */
  const registrationReplies: [number, number, string][] = [
    [0, 400, "retry"],
    [1, 400, "retry"],
    [10, 401, "done"],
    [11, 401, "done"],
    [12, 401, "needs a person"],
    [13, 400, "needs a person"],
    [14, 403, "needs a person"],
    [20, 401, "needs a person"],
    [21, 401, "needs a person"],
    [30, 400, "retry"],
    [31, 400, "needs a person"],
    [32, 400, "needs a person"],
    [33, 400, "retry"],
    [34, 200, "retry"],
    [40, 400, "needs a person"],
    [41, 415, "needs a person"],
    [50, 500, "retry"],
    [99, 400, "retry"],
  ];
  test.each(registrationReplies)("code %d (HTTP %d) to a sell: %s", async (code, httpStatus, expected) => {
    const p = port();
    fake.replyNext("register", { httpStatus, error: { code, text: `ошибка ${code}`, type: "system" } });
    // 10 and 11 concern the token: a new one is obtained and the document sent again.
    const outcome = await refusal(code === 10 || code === 11 ? settle(p, doc()) : p.register(doc()));
    expect(outcome.answer).toBe(expected);
    if (expected === "retry") expect(outcome.failure).toEqual({ reason: "REGISTER_ERROR", params: { code, type: "system", text: `ошибка ${code}` } });
    if (expected === "needs a person") expect(outcome.failure).toEqual({ reason: "REGISTER_REFUSED", params: { code, type: "system", text: `ошибка ${code}` } });
  });

  /** A document the report says failed, by the type of its error. */
  const documentErrors: [FakeAtolError["type"], string][] = [
    ["system", "needs a person"],
    ["driver", "needs a person"],
    ["timeout", "new document"],
    ["agent", "new document"],
    ["unknown", "new document"],
  ];
  test.each(documentErrors)("a document that failed with an error of type %s: %s", async (type, expected) => {
    fake.failNext({ code: 7, text: `ошибка типа ${type}`, type });
    const outcome = await refusal(settle(port(), doc()));
    expect(outcome).toEqual({ answer: expected, failure: { reason: expected === "needs a person" ? "REGISTER_REFUSED" : "REGISTER_ERROR", params: { code: 7, type, text: `ошибка типа ${type}` } } });
  });

  test("to a report: not processed yet (34) is wait; an unknown uuid (30) registers the document again under its external id, which finds it; 20 needs a person; 50 is retried", async () => {
    const p = port();
    const d = doc();
    // Processed first, so that what comes back is the scripted reply's doing, not the queue's.
    const accepted = await settle(p, d);
    if (accepted.status !== "done") throw new Error("not registered");
    fake.replyNext("report", { httpStatus: 200, error: { code: 34, text: "нет", type: "system" }, status: "wait" });
    expect(await p.state(accepted.documentId, d)).toEqual({ documentId: accepted.documentId, status: "wait" });
    fake.replyNext("report", { httpStatus: 400, error: { code: 30, text: "нет такого", type: "system" }, status: "fail" });
    expect(await p.state(accepted.documentId, d)).toMatchObject({ documentId: accepted.documentId, status: "done" });
    expect(fake.documentsOf(d.externalId)).toHaveLength(1);
    fake.replyNext("report", { httpStatus: 401, error: { code: 20, text: "группа", type: "system" } });
    expect(await refusal(p.state(accepted.documentId, d))).toMatchObject({ answer: "needs a person", failure: { params: { code: 20 } } });
    fake.replyNext("report", { httpStatus: 500, error: { code: 50, text: "сервер", type: "system" } });
    expect(await refusal(p.state(accepted.documentId, d))).toMatchObject({ answer: "retry", failure: { params: { code: 50 } } });
  });

  test("a report about another document than the one asked for proves nothing: retried", async () => {
    const p = port();
    const a = doc();
    const b = doc();
    const done = await settle(p, a);
    if (done.status !== "done") throw new Error("not registered");
    expect(await refusal(p.state(done.documentId, b))).toEqual({ answer: "retry", failure: { reason: "REGISTER_BAD_REPLY", params: {} } });
  });
});
