import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { DEV_ACQUIRER_CALLBACK_SECRET, ErrorBody, rpcs, rublesAndKopecks, type Payment } from "@payaccept/contracts";
import { hmacSha256Hex } from "@payaccept/platform";
import { formatRubles } from "@payaccept/web-ui";
import { DashboardClient, text, uniqueEmail } from "./dashboard-client.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";
import { BankApp, createPayment, createShop, eventsOf, failure, refundEventsOf, type TestShop } from "./payments-fixtures.ts";
import { enterPayoutDetails } from "./balance-fixtures.ts";

/** A live shop's payments against the real acquirer emulator, its callbacks and the balance service. */
setDefaultTimeout(60_000);

let stack: Stack;
let live: TestShop;
let bank: BankApp;

beforeAll(async () => {
  // The dashboard only for the test that reads a refusal on its Russian page.
  stack = await Stack.start({ services: ["directory", "payments", "acquirer-emulator", "balance", "dashboard"] });
  live = await createShop(stack, { sandbox: false });
  await enterPayoutDetails(stack, live.accountId);
  bank = new BankApp(stack);
}, STACK_START_MS);
afterAll(() => stack?.stop());

const get = (id: string, shopId = live.shopId) => stack.call(rpcs.payments.get, { shopId, id });
const start = (id: string, method: "SBP" | "CARD") => stack.call(rpcs.payments.start, { id, method });
const statusIs = (id: string, status: string) => eventually(async () => (await get(id)).status === status);
const statusesInStream = async (id: string) => (await eventsOf(stack, id)).map((e) => e.event.status);

/** Posts a callback as the acquirer would, signed with the shared secret unless told otherwise. */
function postCallback(body: Record<string, unknown>, opts: { secret?: string; timestamp?: number } = {}) {
  const raw = JSON.stringify(body);
  const ts = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  return fetch(stack.env.PAYMENTS_CALLBACK_URL!, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "X-Acquirer-Timestamp": ts,
      "X-Acquirer-Signature": hmacSha256Hex(opts.secret ?? DEV_ACQUIRER_CALLBACK_SECRET, `${ts}.${raw}`),
    },
    body: raw,
  });
}
const paidCallback = (p: { id: string }, sessionId: string, paidAt: string) => ({
  callbackId: crypto.randomUUID(),
  sessionId,
  merchantPaymentId: p.id,
  event: "PAID",
  paidAt,
  reason: null,
});

describe("start with the provider", () => {
  test("SBP: a session with QR and deep link; paying in the bank app makes it SUCCESS", async () => {
    const p = await createPayment(stack, live.shopId, { amountKopecks: 150000, description: "Coffee beans" });
    const view = await start(p.id, "SBP");
    expect(view.payment).toMatchObject({ status: "PENDING", method: "SBP", isTest: false });
    expect(view.sbp!.qrPayload).toStartWith(`${stack.env.ACQUIRER_PUBLIC_URL}/sbp/`);
    expect(view.sbp!.deepLink.length).toBeGreaterThan(0);
    expect(view.card).toBeNull();
    expect(await stack.call(rpcs.payments.checkout, { id: p.id })).toEqual(view);
    // the buyer reloading the page gets the same session back
    expect(await start(p.id, "SBP")).toEqual(view);

    await bank.sbp(view.sbp!.qrPayload, "pay");
    await statusIs(p.id, "SUCCESS");
    const paid = await get(p.id);
    expect(paid.paidAt).not.toBeNull();
    await eventually(async () => (await statusesInStream(p.id)).join() === "SUCCESS");
  });

  test("CARD: the form goes straight to the acquirer; an approved card makes it SUCCESS, a declined one FAILED", async () => {
    for (const [pan, status] of [
      ["4111 1111 1111 1111", "SUCCESS"],
      ["4000 0000 0000 0002", "FAILED"],
    ] as const) {
      const p = await createPayment(stack, live.shopId);
      const view = await start(p.id, "CARD");
      expect(view.card!.formAction).toBe(`${stack.env.ACQUIRER_PUBLIC_URL}/card/${view.card!.sessionId}`);
      expect(view.sbp).toBeNull();
      const res = await bank.card(view.card!.formAction, pan);
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe(p.payUrl);
      await statusIs(p.id, status);
      await eventually(async () => (await statusesInStream(p.id)).join() === status);
    }
  });

  test("declined in the bank app, then paid after all: FAILED, then SUCCESS (a late payment)", async () => {
    const p = await createPayment(stack, live.shopId);
    const view = await start(p.id, "SBP");
    await bank.sbp(view.sbp!.qrPayload, "decline");
    await statusIs(p.id, "FAILED");
    await bank.sbp(view.sbp!.qrPayload, "pay");
    await statusIs(p.id, "SUCCESS");
    await eventually(async () => (await statusesInStream(p.id)).join() === "FAILED,SUCCESS");
  });

  test("switching SBP → card cancels the QR at the acquirer; switching back reopens it; only the current session pays", async () => {
    const p = await createPayment(stack, live.shopId);
    const sbp = await start(p.id, "SBP");
    const card = await start(p.id, "CARD");
    expect(card.payment).toMatchObject({ status: "PENDING", method: "CARD" });
    expect(card.sbp).toBeNull();
    expect(card.expiresAt).toBe(sbp.expiresAt);
    // the old QR is dead: its bank page says so and offers no button
    const qrPage = await (await fetch(bank.local(sbp.sbp!.qrPayload))).text();
    expect(qrPage).toContain("Этот QR-код больше не действует");
    expect(qrPage).not.toContain('name="decision"');

    const back = await start(p.id, "SBP");
    expect(back.sbp).toEqual(sbp.sbp);
    // the card session is the one canceled now: its form is refused back to the payment page
    const res = await bank.card(card.card!.formAction, "4111 1111 1111 1111");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(p.payUrl);
    expect((await get(p.id)).status).toBe("PENDING");
    await bank.sbp(back.sbp!.qrPayload, "pay");
    await statusIs(p.id, "SUCCESS");
    expect((await get(p.id)).method).toBe("SBP");
    await eventually(async () => (await statusesInStream(p.id)).join() === "SUCCESS");
  });

  test("provider down: the start fails as unavailable and the payment stays CREATED", async () => {
    const p = await createPayment(stack, live.shopId);
    await stack.kill("acquirer-emulator", "SIGKILL");
    try {
      expect(await failure(start(p.id, "SBP"))).toEqual({
        code: "UNAVAILABLE",
        message: "the payment provider is unavailable; nothing changed, try again",
      });
      expect((await get(p.id)).status).toBe("CREATED");
    } finally {
      stack.service("acquirer-emulator").start();
      await stack.service("acquirer-emulator").waitReady();
    }
    expect((await start(p.id, "SBP")).payment.status).toBe("PENDING");
  });
});

describe("provider callbacks", () => {
  test("a bad signature or a stale timestamp is refused with 401 in the Error shape, and changes nothing", async () => {
    const p = await createPayment(stack, live.shopId);
    await start(p.id, "SBP");
    const body = paidCallback(p, "whatever", new Date().toISOString());
    for (const res of [
      await postCallback(body, { secret: "not-the-secret" }),
      await postCallback(body, { timestamp: Math.floor(Date.now() / 1000) - 301 }),
    ]) {
      expect(res.status).toBe(401);
      const err = ErrorBody.parse(await res.json());
      expect(err).toMatchObject({ statusCode: 401, error: "Unauthorized" });
    }
    const unsigned = await fetch(stack.env.PAYMENTS_CALLBACK_URL!, { method: "POST", body: JSON.stringify(body) });
    expect(unsigned.status).toBe(401);
    expect((await get(p.id)).status).toBe("PENDING");
  });

  test("a signed callback for another session, an unknown payment or an unknown event is acknowledged and ignored", async () => {
    const p = await createPayment(stack, live.shopId);
    const view = await start(p.id, "SBP");
    const sessionId = new URL(view.sbp!.qrPayload).pathname.split("/").at(-1)!;
    const now = new Date().toISOString();
    const cases = [
      paidCallback(p, "another-session", now),
      paidCallback({ id: Bun.randomUUIDv7() }, sessionId, now),
      { ...paidCallback(p, sessionId, now), event: "CHARGEBACK" },
    ];
    for (const body of cases) {
      const res = await postCallback(body);
      expect(res.status).toBe(200);
      expect((await res.json()).result).toBe("ignored");
    }
    expect((await get(p.id)).status).toBe("PENDING");
  });

  test("a repeated PAID is acknowledged as a repeat and produces no second event", async () => {
    const p = await createPayment(stack, live.shopId);
    const view = await start(p.id, "SBP");
    const sessionId = new URL(view.sbp!.qrPayload).pathname.split("/").at(-1)!;
    const body = paidCallback(p, sessionId, "2026-01-02T03:04:05.000Z");
    const first = await postCallback(body);
    expect(await first.json()).toEqual({ result: "applied", status: "SUCCESS" });
    expect(await (await postCallback(body)).json()).toEqual({ result: "repeat", status: "SUCCESS" });
    expect((await get(p.id)).paidAt).toBe("2026-01-02T03:04:05.000Z");
    await eventually(async () => (await statusesInStream(p.id)).join() === "SUCCESS");
  });
});

describe("refund (live)", () => {
  const balance = () => stack.call(rpcs.balance.get, { accountId: live.accountId });
  const sessionOf = (qrPayload: string) => new URL(qrPayload).pathname.split("/").at(-1)!;
  /** Paid three days ago as far as the ledger knows, so the receipt is past its hold and available. */
  const threeDaysAgo = () => new Date(Date.now() - 3 * 86_400_000).toISOString();

  async function paidLongAgo(method: "SBP" | "CARD"): Promise<{ p: Payment; view: Awaited<ReturnType<typeof start>> }> {
    const p = await createPayment(stack, live.shopId, { amountKopecks: 200000 });
    const view = await start(p.id, method);
    const sessionId = method === "SBP" ? sessionOf(view.sbp!.qrPayload) : view.card!.sessionId;
    expect((await postCallback(paidCallback(p, sessionId, threeDaysAgo()))).status).toBe(200);
    return { p: await get(p.id), view };
  }

  const refund = (id: string, req: { amountKopecks?: number; idempotencyKey?: string } = {}) => stack.call(rpcs.payments.refund, { shopId: live.shopId, id, ...req });
  /** The account's available balance once it has at least `kopecks`. */
  const availableAtLeast = (kopecks: number) =>
    eventually(async () => {
      const b = await balance();
      return b.availableKopecks >= kopecks && b;
    });

  test("partial refunds, then the rest: SUCCESS → REFUNDED once the provider has returned it all; the balance gives the net back once", async () => {
    const { p, view } = await paidLongAgo("SBP");
    await bank.sbp(view.sbp!.qrPayload, "pay"); // the acquirer's own record of the payment
    const net = p.amountKopecks - p.commissionKopecks;
    const before = await availableAtLeast(net);
    const part = await refund(p.id, { amountKopecks: 50_000 });
    expect(part).toMatchObject({ amountKopecks: 50_000, status: "SUCCEEDED", failureReason: null });
    expect(await get(p.id)).toEqual({ ...p, refundedKopecks: 50_000 });
    const rest = await refund(p.id);
    expect(rest).toMatchObject({ amountKopecks: 150_000, status: "SUCCEEDED" });
    expect(await get(p.id)).toEqual({ ...p, status: "REFUNDED", refundedKopecks: 200_000 });
    await eventually(async () => (await statusesInStream(p.id)).join() === "SUCCESS,REFUNDED");
    await eventually(async () => (await balance()).availableKopecks === before.availableKopecks - net);
    const events = await refundEventsOf(stack, p.id);
    expect(events.map((e) => [e.msgId, e.subject, e.event.refundedTotalKopecks])).toEqual([
      [`refund:${part.id}`, "payments.refunds.SUCCEEDED", 50_000],
      [`refund:${rest.id}`, "payments.refunds.SUCCEEDED", 200_000],
    ]);
    expect(events.reduce((sum, e) => sum + e.event.balanceKopecks, 0)).toBe(net);
  });

  test("a refund the acquirer declines is a FAILED refund; the hold goes back and the payment stays SUCCESS", async () => {
    const { p, view } = await paidLongAgo("SBP");
    await bank.sbp(view.sbp!.qrPayload, "pay");
    const before = await availableAtLeast(p.amountKopecks - p.commissionKopecks);
    // The emulator's test rule: an amount ending in 13 kopecks is declined.
    const declined = await refund(p.id, { amountKopecks: 10_013 });
    expect(declined).toMatchObject({
      status: "FAILED",
      failureReason: "the acquirer declined the refund: refund_declined",
      failureCode: "REFUND_DECLINED",
      failureParams: { detail: "refund_declined" },
    });
    expect(declined.completedAt).not.toBeNull();
    expect(await get(p.id)).toEqual(p);
    await eventually(async () => (await refundEventsOf(stack, p.id)).map((e) => e.subject).join() === "payments.refunds.FAILED");
    await eventually(async () => (await balance()).availableKopecks === before.availableKopecks);
    // Nothing was refunded, so all of it can still be.
    expect(await refund(p.id)).toMatchObject({ amountKopecks: 200_000, status: "SUCCEEDED" });
  });

  test("when the acquirer refuses outright (it never saw the session paid), the refund is FAILED with its reason", async () => {
    const { p } = await paidLongAgo("CARD");
    const before = await availableAtLeast(p.amountKopecks - p.commissionKopecks);
    const refused = await refund(p.id);
    expect(refused).toMatchObject({ status: "FAILED", failureReason: "the payment provider refused the request", failureCode: "PROVIDER_REFUSED", failureParams: {} });
    expect((await get(p.id)).status).toBe("SUCCESS");
    await eventually(async () => (await balance()).availableKopecks === before.availableKopecks);
  });

  test("a balance that cannot cover the refund: 409 with the amounts, a FAILED refund on record, nothing taken", async () => {
    const start = (await balance()).availableKopecks;
    const { p } = await paidLongAgo("SBP");
    const net = p.amountKopecks - p.commissionKopecks;
    const { availableKopecks } = await availableAtLeast(start + net);
    await stack.call(rpcs.balance.createPayout, { accountId: live.accountId, amountKopecks: availableKopecks });
    const f = await failure(refund(p.id, { idempotencyKey: "too-early" }));
    expect(f.code).toBe("CONFLICT");
    expect(f.message).toStartWith(`the balance cannot cover the refund: it takes ${rublesAndKopecks(net)} from the balance, which has 0.00 RUB (0 kopecks) available`);
    const [failed] = (await stack.call(rpcs.payments.listRefunds, { shopId: live.shopId, id: p.id })).items;
    expect(failed).toMatchObject({
      status: "FAILED",
      amountKopecks: p.amountKopecks,
      failureCode: "REFUND_EXCEEDS_AVAILABLE",
      failureParams: { neededKopecks: net, availableKopecks: 0 },
    });
    expect(await get(p.id)).toEqual(p);
    expect((await balance()).availableKopecks).toBe(0);
  });

  test("the same refusal on the Russian dashboard reads fully in Russian, its amounts as money", async () => {
    const email = uniqueEmail("live-refund");
    await stack.call(rpcs.dashboard.createMerchant, { email, password: "correct horse battery", accountId: live.accountId });
    const merchant = DashboardClient.of(stack);
    await merchant.signIn(email);
    const start = (await balance()).availableKopecks;
    const { p } = await paidLongAgo("SBP");
    const net = p.amountKopecks - p.commissionKopecks;
    const { availableKopecks } = await availableAtLeast(start + net);
    await stack.call(rpcs.balance.createPayout, { accountId: live.accountId, amountKopecks: availableKopecks });
    const form = `/shops/${live.shopId}/payments/${p.id}/refund`;
    const key = /name="idempotencyKey" value="([^"]+)"/.exec((await merchant.get(form)).html)![1]!;
    const refused = await merchant.post(form, { amount: "2000,00", idempotencyKey: key });
    expect(refused.status).toBe(409);
    const said = text(refused.html).split("Действие не выполнено:")[1]!.split("Покупателю можно вернуть")[0]!.trim();
    expect(said).toBe(
      `Для возврата не хватает баланса: с баланса нужно списать ${formatRubles(net, "ru")}, а доступно 0,00\u00A0₽ (и 0,00\u00A0₽ из замороженных поступлений этого платежа).`,
    );
  });
});
