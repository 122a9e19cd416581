import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DomainError, type Reason } from "@payaccept/contracts";
import type { Connector } from "../services/payments/src/connectors/connector.ts";
import { tbankConnector } from "../services/payments/src/connectors/tbank/index.ts";
import { ProviderError } from "../services/payments/src/provider/port.ts";
import { TERMINAL } from "./connectors/tbank-driver.ts";
import { bankToken } from "./fakes/tbank/token.ts";
import { FakeTBank, TEST_CARDS } from "./fakes/tbank/fake-tbank.ts";
import { payOnBankForm } from "./connectors/tbank-driver.ts";
import { eventually } from "./harness/stack.ts";

/**
 * T-Bank's connector on what is its own, beyond the conformance suite: a bank whose Init has no
 * idempotency and whose Cancel refunds, answers lost, its own failure codes, and its notifications
 * as the bank signs them (tests/fakes/tbank is written from the bank's documentation).
 */

let fake: FakeTBank;
let connector: Connector;
const warnings: string[] = [];
const notificationUrl = "http://127.0.0.1:9/provider/tbank/notification";

beforeAll(() => {
  fake = new FakeTBank({ terminals: { [TERMINAL.key]: TERMINAL.password, OtherTerminal: "other-password" } });
  connector = tbankConnector({
    baseUrl: fake.apiUrl,
    terminalKey: TERMINAL.key,
    password: TERMINAL.password,
    timeoutMs: 800,
    notificationUrl,
    log: { warn: (_o, msg) => warnings.push(msg), error: (_o, msg) => warnings.push(msg) },
  });
});
afterAll(() => fake.stop());

const port = () => connector.port;
const start = (method: "CARD" | "SBP", paymentId = crypto.randomUUID()) =>
  port().createSession({ paymentId, method, amountKopecks: 250_000, description: "Зерно", returnUrl: "http://localhost:3001/pay/x", expiresAt: Date.now() + 600_000 });

describe("T-Bank's API as the connector calls it", () => {
  test("every request carries TerminalKey and the Token over its root fields; Init names our notification URL and the buyer's deadline", async () => {
    const paymentId = crypto.randomUUID();
    await start("CARD", paymentId);
    const init = fake.calls("Init").find((b) => b.OrderId === paymentId)!;
    expect({ ...init }).toMatchObject({
      TerminalKey: TERMINAL.key,
      Amount: 250_000,
      PayType: "O",
      NotificationURL: notificationUrl,
      RedirectDueDate: expect.stringMatching(/\+03:00$/),
    });
    expect(init.Token).toBe(bankToken(init, TERMINAL.password));
    expect(JSON.stringify(fake.requests)).not.toContain(TERMINAL.password);
  });

  test("a refused connection and a 5xx are 'nothing began'; a lost answer is an unknown outcome", async () => {
    fake.fail5xx("Init");
    expect(await start("CARD").catch((e: ProviderError) => e)).toMatchObject({ kind: "unavailable", started: false });
    fake.dropAnswer("GetState");
    expect(
      await port()
        .session("100001")
        .catch((e: ProviderError) => e),
    ).toMatchObject({ kind: "unavailable", started: true });
  });

  test("the bank's own failure (its 'try again later') is an unknown outcome; its refusal is a refusal", async () => {
    const wrongToken = tbankConnector({ baseUrl: fake.apiUrl, terminalKey: TERMINAL.key, password: "wrong", timeoutMs: 800, notificationUrl, log: { warn() {}, error() {} } });
    expect(await wrongToken.port.session("100001").catch((e: ProviderError) => e)).toMatchObject({
      kind: "rejected",
      reason: "PROVIDER_REFUSED",
      message: expect.stringContaining("204"),
    });
  });
});

describe("Init is not idempotent: a lost answer is looked up by the OrderId before anything is sent again", () => {
  test("an SBP payment whose Init answer was lost is found by CheckOrder and its QR asked for: no second payment", async () => {
    const paymentId = crypto.randomUUID();
    fake.dropAnswer("Init");
    const s = await start("SBP", paymentId);
    expect(s.method).toBe("SBP");
    expect(fake.paymentsOf(paymentId)).toHaveLength(1);
    expect(fake.calls("CheckOrder").some((b) => b.OrderId === paymentId)).toBe(true);
    expect(s.sessionId).toBe(`${fake.paymentsOf(paymentId)[0]!.paymentId}.sbp`);
  });

  test("a card payment's lost Init: looked up, left unpaid (nobody has its URL), and the buyer told to try again", async () => {
    const paymentId = crypto.randomUUID();
    fake.dropAnswer("Init");
    expect(await start("CARD", paymentId).catch((e: ProviderError) => e)).toMatchObject({ kind: "unavailable", started: true });
    expect(fake.calls("CheckOrder").some((b) => b.OrderId === paymentId)).toBe(true);
    expect(fake.paymentsOf(paymentId).map((p) => p.status)).toEqual(["NEW"]);
    expect((await start("CARD", paymentId)).method).toBe("CARD");
    expect(fake.paymentsOf(paymentId)).toHaveLength(2);
  });

  test("a charge asks the bank what it did for its OrderId first: a retry after a lost Init charges the payment Init made", async () => {
    const s = await start("CARD");
    const saving = crypto.randomUUID();
    const saved = await port().createSession({
      paymentId: saving,
      method: "CARD",
      amountKopecks: 1000,
      description: null,
      returnUrl: "http://localhost/x",
      expiresAt: Date.now() + 600_000,
      saveMethod: true,
    });
    if (saved.method !== "CARD" || s.method !== "CARD") throw new Error("card sessions expected");
    await payOnBankForm(saved.formAction, TEST_CARDS.success);
    const method = (await port().session(saved.sessionId)).savedMethod!;
    const chargeId = crypto.randomUUID();
    fake.dropAnswer("Init");
    expect(
      await port()
        .charge({ chargeId, methodId: method.methodId, amountKopecks: 5000, description: null, returnUrl: "http://x" })
        .catch((e: ProviderError) => e),
    ).toMatchObject({ kind: "unavailable" });
    expect(fake.paymentsOf(chargeId).map((p) => p.status)).toEqual(["NEW"]);
    expect(await port().charge({ chargeId, methodId: method.methodId, amountKopecks: 5000, description: null, returnUrl: "http://x" })).toMatchObject({
      status: "PAID",
      capturedKopecks: 5000,
    });
    expect(fake.paymentsOf(chargeId).map((p) => p.status)).toEqual(["CONFIRMED"]);
    expect(fake.calls("Charge").filter((b) => b.PaymentId === fake.paymentsOf(chargeId)[0]!.paymentId)).toHaveLength(1);
  });
});

describe("Cancel means three things at the bank: the status is read before it is sent", () => {
  test("a method switch never cancels (refunds) a payment the buyer has paid", async () => {
    const s = await start("CARD");
    if (s.method !== "CARD") throw new Error("card session expected");
    await payOnBankForm(s.formAction, TEST_CARDS.success);
    const cancels = fake.calls("Cancel").length;
    expect(
      await port()
        .cancelSession(s.sessionId)
        .catch((e: ProviderError) => e),
    ).toMatchObject({ kind: "rejected", reason: "SESSION_ALREADY_PAID" });
    expect(fake.calls("Cancel").length).toBe(cancels);
  });

  test("a void of a captured hold is refused without a Cancel; a capture of a released hold too", async () => {
    const s = await start("CARD");
    const held = await port().createSession({
      paymentId: crypto.randomUUID(),
      method: "CARD",
      amountKopecks: 9000,
      description: null,
      returnUrl: "http://x",
      expiresAt: Date.now() + 600_000,
      hold: true,
    });
    if (held.method !== "CARD" || s.method !== "CARD") throw new Error("card sessions expected");
    await payOnBankForm(held.formAction, TEST_CARDS.success);
    await port().capture(held.sessionId, 4000);
    const cancels = fake.calls("Cancel").length;
    expect(
      await port()
        .void(held.sessionId)
        .catch((e: ProviderError) => e),
    ).toMatchObject({ kind: "rejected", reason: "HOLD_ALREADY_CAPTURED", params: { capturedKopecks: 4000 } });
    expect(fake.calls("Cancel").length).toBe(cancels);
  });
});

describe("the bank's error codes", () => {
  /**
   * Declines of the bank's error table as a merchant reads them (docs/connectors.md, "T-Bank:
   * errors"): the reason of our catalogue, or PROVIDER_DECLINED naming the code the catalogue has no word for.
   */
  const DECLINES: [string, Reason][] = [
    ["1051", "INSUFFICIENT_FUNDS"],
    ["116", "INSUFFICIENT_FUNDS"],
    ["1054", "CARD_EXPIRED"],
    ["1033", "CARD_EXPIRED"],
    ["1061", "CARD_LIMIT_EXCEEDED"],
    ["1065", "CARD_LIMIT_EXCEEDED"],
    ["1082", "CARD_DETAILS_INVALID"],
    ["1014", "CARD_DETAILS_INVALID"],
    ["101", "AUTHENTICATION_FAILED"],
    ["1041", "CARD_DECLINED"],
    ["1043", "CARD_DECLINED"],
    ["1057", "CARD_DECLINED"],
    ["3015", "METHOD_REVOKED"],
    ["1034", "PROVIDER_DECLINED"],
  ];

  test.each(DECLINES)("a payment the bank declines with %s is DECLINED as %s, by a lookup and by its notification", async (code, reason) => {
    const paymentId = crypto.randomUUID();
    const s = await start("CARD", paymentId);
    if (s.method !== "CARD") throw new Error("card session expected");
    fake.declineNext(code);
    await payOnBankForm(s.formAction, TEST_CARDS.success);
    expect(fake.paymentsOf(paymentId)[0]).toMatchObject({ status: "REJECTED", errorCode: code });
    const failure = { reason, params: reason === "PROVIDER_DECLINED" ? { detail: `T-Bank error ${code}` } : {} };
    expect({ ...(await port().session(s.sessionId)) }).toMatchObject({ status: "DECLINED", reason: `tbank_${code}`, failure });
    const notification = await eventually(() => fake.sent(paymentId).find((n) => n.Status === "REJECTED"));
    const [read] = await connector.notifications.read({
      headers: new Headers(),
      rawBody: JSON.stringify(notification),
      nowMs: Date.now(),
      stored: async () => ({ sessionId: s.sessionId, method: "CARD" }),
    });
    expect({ ...read!.known }).toMatchObject({ event: "DECLINED", reason: `tbank_${code}` });
    expect(read!.failure).toEqual(failure);
  });
});

describe("notifications as the bank signs them", () => {
  const read = (body: Record<string, unknown>, password = TERMINAL.password) =>
    connector.notifications.read({
      headers: new Headers(),
      rawBody: JSON.stringify({ ...body, Token: bankToken(body, password) }),
      nowMs: Date.now(),
      stored: async () => ({ sessionId: "700001", method: "CARD" }),
    });
  const confirmed = {
    TerminalKey: TERMINAL.key,
    OrderId: crypto.randomUUID(),
    Success: true,
    Status: "CONFIRMED",
    PaymentId: 700001,
    ErrorCode: "0",
    Amount: 9855,
    CardId: 322264,
    Pan: "430000******0777",
    ExpDate: "1130",
    RebillId: 101709,
  };

  test("CONFIRMED is PAID with the card it saved; a duplicate reads the same (one callback id)", async () => {
    const [first] = await read(confirmed);
    const [again] = await read(confirmed);
    expect(first!.known).toMatchObject({
      event: "PAID",
      sessionId: "700001",
      merchantPaymentId: confirmed.OrderId,
      amountKopecks: 9855,
      savedMethod: { method: "CARD", card: { brand: "VISA", last4: "0777", expMonth: 11, expYear: 2030 } },
    });
    expect(again!.callback.callbackId).toBe(first!.callback.callbackId);
  });

  test("REJECTED is DECLINED with the error code's reason; AUTH_FAIL is a failed 3-D Secure", async () => {
    const [rejected] = await read({ ...confirmed, Success: false, Status: "REJECTED", ErrorCode: "1051" });
    expect(rejected!.failure).toEqual({ reason: "INSUFFICIENT_FUNDS", params: {} });
    const [failed] = await read({ ...confirmed, Success: false, Status: "AUTH_FAIL", ErrorCode: "101" });
    expect(failed!.failure).toEqual({ reason: "AUTHENTICATION_FAILED", params: {} });
  });

  test("a forged Token, another terminal's notification or a body changed after signing is refused", async () => {
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: DomainError) => e.reason,
      );
    expect(await refusal(read(confirmed, "not-the-password"))).toBe("CALLBACK_SIGNATURE_INVALID");
    expect(await refusal(read({ ...confirmed, TerminalKey: "OtherTerminal" }, "other-password"))).toBe("CALLBACK_SIGNATURE_INVALID");
    const signed = { ...confirmed, Token: bankToken(confirmed, TERMINAL.password) };
    const tampered = connector.notifications.read({
      headers: new Headers(),
      rawBody: JSON.stringify({ ...signed, Amount: 1 }),
      nowMs: Date.now(),
      stored: async () => ({ sessionId: null, method: null }),
    });
    expect(await refusal(tampered)).toBe("CALLBACK_SIGNATURE_INVALID");
  });

  test("answered OK only when every result is committed; otherwise the bank sends it again", async () => {
    expect(await connector.notifications.answer({ retry: false, summary: {} }).text()).toBe("OK");
    const retry = connector.notifications.answer({ retry: true, summary: {} });
    expect([retry.status, await retry.text()]).toEqual([503, "RETRY"]);
  });

  test("the fake bank sends again until it hears exactly OK", async () => {
    const answers = new Map<string, number>();
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (req) => {
        const status = ((await req.json()) as { Status: string }).Status;
        answers.set(status, (answers.get(status) ?? 0) + 1);
        return new Response(answers.get(status)! < 3 ? "ok" : "OK");
      },
    });
    const bank = new FakeTBank({ terminals: { T: "p" }, notificationRetryMs: [20, 20, 20] });
    try {
      const init = await (await fetch(`${bank.apiUrl}/Init`, { method: "POST", body: JSON.stringify(signedInit(receiver.port!)) })).json();
      await payOnBankForm((init as { PaymentURL: string }).PaymentURL, TEST_CARDS.success);
      await eventually(() => bank.delivered().length === 2);
      expect(bank.deliveries.filter((d) => d.body.Status === "AUTHORIZED").map((d) => d.answer)).toEqual(["ok", "ok", "OK"]);
    } finally {
      receiver.stop(true);
      await bank.stop();
    }
  });
});

function signedInit(port: number) {
  const body = { TerminalKey: "T", Amount: 1000, OrderId: crypto.randomUUID(), NotificationURL: `http://127.0.0.1:${port}/n` };
  return { ...body, Token: bankToken(body, "p") };
}
