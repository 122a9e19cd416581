import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs, type Payment } from "@payaccept/contracts";
import { ENGINES } from "./harness/engines.ts";
import { eventually, Stack } from "./harness/stack.ts";
import { acquirer, api, buyerPays, create, getPayment, refusal, shopWithReceiver, statusIs, webhookOf, webhooksAre, type LiveShop } from "./recurring-fixtures.ts";

/**
 * A hold's capture deadline (issue 18) with a short CAPTURE_TTL: released by itself (EXPIRED, the
 * money released at the acquirer) when nobody captures or voids it, and a capture and a void
 * racing the deadline end in exactly one of the three, the acquirer agreeing. Both engines.
 */
setDefaultTimeout(120_000);

describe.each(ENGINES)("the capture deadline (%s)", (engine) => {
  let stack: Stack;
  let shop: LiveShop;

  beforeAll(async () => {
    stack = await Stack.start({
      services: ["directory", "gateway", "payments", "acquirer-emulator", "webhook-dispatcher"],
      postgres: engine === "postgres",
      env: { CAPTURE_TTL: "2s", TIMER_SWEEP_MS: "200" },
    });
    shop = await shopWithReceiver(stack);
  });
  afterAll(async () => {
    shop?.receiver.stop();
    await stack?.stop();
  });

  async function hold(): Promise<{ id: string; sessionId: string }> {
    const p = await create(stack, shop, { amountKopecks: 50_000, capture: false });
    await buyerPays(stack, p.id, { method: "CARD" });
    // AUTHORIZED, or already past its short deadline on a slow host: either way it was held
    await webhookOf(shop, p.id, "AUTHORIZED");
    return { id: p.id, sessionId: (await stack.call(rpcs.payments.checkout, { id: p.id })).card!.sessionId };
  }
  const bankSession = async (sessionId: string) => (await (await acquirer(stack, `/v1/sessions/${sessionId}`)).json()) as { status: string; reason: string | null };

  test("nobody captures: at the deadline the hold is released (EXPIRED, voided at the bank); nothing applies to it after", async () => {
    const { id, sessionId } = await hold();
    const expired = await statusIs(stack, shop, id, "EXPIRED");
    expect(expired).toMatchObject({ capture: false, captureDeadline: null, paidAt: null });
    expect(await bankSession(sessionId)).toMatchObject({ status: "VOIDED" });
    await webhooksAre(shop, id, ["AUTHORIZED", "EXPIRED"]);
    expect(await refusal(api(stack, shop, `/v1/payments/${id}/capture`, { method: "POST" }))).toEqual({ status: 409, code: "PAYMENT_NOT_CAPTURABLE" });
    expect(await refusal(api(stack, shop, `/v1/payments/${id}/cancel`, { method: "POST" }))).toEqual({ status: 409, code: "PAYMENT_NOT_CANCELABLE" });
  });

  test("capture ‖ void ‖ deadline: exactly one of them, as the acquirer has it, with one final webhook", async () => {
    const holds = await Promise.all(Array.from({ length: 4 }, () => hold()));
    // Fire both calls at each hold right around its deadline, whoever wins.
    await Promise.all(
      holds.map(async ({ id }) => {
        const p: Payment = await getPayment(stack, shop, id);
        const deadline = p.captureDeadline ? Date.parse(p.captureDeadline) : Date.now();
        await Bun.sleep(Math.max(0, deadline - Date.now() - 100));
        const answers = await Promise.all([
          api(stack, shop, `/v1/payments/${id}/capture`, { method: "POST" }),
          api(stack, shop, `/v1/payments/${id}/cancel`, { method: "POST" }),
        ]);
        expect(answers.map((a) => a.status).every((s) => s === 200 || s === 409)).toBe(true);
      }),
    );
    const bankStatus = { SUCCESS: "PAID", CANCELED: "VOIDED", EXPIRED: "VOIDED" } as Record<string, string>;
    for (const { id, sessionId } of holds) {
      const final = await eventually(async () => {
        const p = await getPayment(stack, shop, id);
        return p.status !== "AUTHORIZED" && p;
      }, 30_000);
      expect(["SUCCESS", "CANCELED", "EXPIRED"]).toContain(final.status);
      expect((await bankSession(sessionId)).status).toBe(bankStatus[final.status]!);
      await webhooksAre(shop, id, ["AUTHORIZED", final.status]);
    }
  });
});
