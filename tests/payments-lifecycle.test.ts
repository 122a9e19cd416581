import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { CheckoutView, paymentEventId, paymentEventSubject, rpcs } from "@payaccept/contracts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";
import { createPayment, createShop, eventsOf, failure, type TestShop } from "./payments-fixtures.ts";
import { ENGINES } from "./harness/engines.ts";

setDefaultTimeout(60_000);

describe.each(ENGINES)("payments lifecycle on %s", (engine) => {
  let stack: Stack;
  let sandbox: TestShop;

  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "payments"], postgres: engine === "postgres" });
    sandbox = await createShop(stack, { sandbox: true, successUrl: "https://shop.example/thanks", failUrl: "https://shop.example/sorry" });
  }, STACK_START_MS);
  afterAll(() => stack?.stop());

  const cancel = (id: string, shopId = sandbox.shopId) => stack.call(rpcs.payments.cancel, { shopId, id });
  const start = (id: string, method: "SBP" | "CARD" = "SBP") => stack.call(rpcs.payments.start, { id, method });
  const outcome = (id: string, o: "SUCCESS" | "FAILED" | "EXPIRED") => stack.call(rpcs.payments.sandboxOutcome, { id, outcome: o });
  const refund = (id: string, shopId = sandbox.shopId) => stack.call(rpcs.payments.refund, { shopId, id });

  /** Waits until the stream holds the payment's events with these statuses, then returns them. */
  const eventsWith = (id: string, statuses: string[]) =>
    eventually(async () => {
      const evs = await eventsOf(stack, id);
      return evs.map((e) => e.event.status).join() === statuses.join() && evs;
    });

  describe("cancel", () => {
    test("CREATED → CANCELED, a repeat answers the same with no second event", async () => {
      const p = await createPayment(stack, sandbox.shopId, { telegramId: "42", metadata: { k: "v" } });
      const first = await cancel(p.id);
      expect(first).toEqual({ ...p, status: "CANCELED" });
      expect(await cancel(p.id)).toEqual(first);
      expect(await cancel(p.id)).toEqual(first);
      const [ev] = await eventsWith(p.id, ["CANCELED"]);
      expect(ev!.subject).toBe(paymentEventSubject("CANCELED"));
      expect(ev!.msgId).toBe(paymentEventId(p.id, "CANCELED"));
      expect(ev!.event).toMatchObject({
        eventId: `${p.id}:CANCELED`,
        paymentId: p.id,
        shopId: sandbox.shopId,
        accountId: sandbox.accountId,
        orderId: p.orderId,
        status: "CANCELED",
        previousStatus: "CREATED",
        amountKopecks: p.amountKopecks,
        telegramId: "42",
        metadata: { k: "v" },
        isTest: true,
      });
      // a later event of another payment proves the relay moved on without a second CANCELED
      const later = await createPayment(stack, sandbox.shopId);
      await cancel(later.id);
      await eventsWith(later.id, ["CANCELED"]);
      expect((await eventsOf(stack, p.id)).length).toBe(1);
    });

    test("the orderId stays taken after a cancel", async () => {
      const p = await createPayment(stack, sandbox.shopId);
      await cancel(p.id);
      expect((await failure(createPayment(stack, sandbox.shopId, { orderId: p.orderId }))).code).toBe("CONFLICT");
    });

    test("refused once the buyer started paying, and for final statuses", async () => {
      const pending = await createPayment(stack, sandbox.shopId);
      await start(pending.id);
      expect(await failure(cancel(pending.id))).toEqual({ code: "CONFLICT", message: "the buyer has already started paying; wait for the final status" });
      await outcome(pending.id, "SUCCESS");
      expect(await failure(cancel(pending.id))).toEqual({ code: "CONFLICT", message: "the payment is SUCCESS and can no longer be canceled" });
    });

    test("a canceled payment cannot be started", async () => {
      const p = await createPayment(stack, sandbox.shopId);
      await cancel(p.id);
      expect(await failure(start(p.id))).toEqual({ code: "CONFLICT", message: "payment is CANCELED and cannot be paid" });
    });
  });

  describe("checkout and start (buyer side)", () => {
    test("checkout shows the payment, the shop, its methods and effective links", async () => {
      const own = await createPayment(stack, sandbox.shopId, { successUrl: "https://shop.example/own" });
      // the shop's links are set by an update after its creation; they reach payments through the KV watch
      const view = await eventually(async () => {
        const v = await stack.call(rpcs.payments.checkout, { id: own.id });
        return v.failUrl !== null && v;
      });
      expect(CheckoutView.parse(view)).toEqual(view);
      expect(view).toEqual({
        payment: own,
        shopName: "Coffee beans",
        methods: ["SBP", "CARD"],
        sandbox: true,
        accepting: true,
        successUrl: "https://shop.example/own",
        failUrl: "https://shop.example/sorry",
        expiresAt: null,
        sbp: null,
        card: null,
        // No receipt was asked for, so the success page names no address for it.
        receiptTo: null,
        // Nor a saved method, nor a charge awaiting the buyer's authentication.
        saveMethod: null,
        authentication: null,
      });
    });

    test("start moves CREATED → PENDING with the method, its commission and a deadline", async () => {
      const p = await createPayment(stack, sandbox.shopId, { amountKopecks: 10000 });
      expect(p.commissionKopecks).toBe(250);
      const before = Date.now();
      const view = await start(p.id, "SBP");
      const after = Date.now();
      expect(view.payment).toMatchObject({ status: "PENDING", method: "SBP", commissionKopecks: 70 });
      // the default PENDING period: 20 minutes from the moment of the start, on the store's clock:
      // on PostgreSQL that is the server's time carried by payments, known to ± half a round trip
      // (store-clock.ts), so it may stand a few ms off this process's clock
      const expiresAt = Date.parse(view.expiresAt!);
      const storeClockSlackMs = 1000;
      expect(expiresAt).toBeGreaterThanOrEqual(before + 20 * 60_000 - storeClockSlackMs);
      expect(expiresAt).toBeLessThanOrEqual(after + 20 * 60_000 + storeClockSlackMs);
      expect(await stack.call(rpcs.payments.get, { shopId: sandbox.shopId, id: p.id })).toEqual(view.payment);
      // no event for PENDING
      expect(await eventsOf(stack, p.id)).toEqual([]);
    });

    test("starting again with the same method returns the current view; another method switches, keeping the deadline", async () => {
      const p = await createPayment(stack, sandbox.shopId);
      const view = await start(p.id, "CARD");
      expect(await start(p.id, "CARD")).toEqual(view);
      const switched = await start(p.id, "SBP");
      // the commission is the new method's: 0.7 % for SBP
      expect(switched.payment).toMatchObject({ status: "PENDING", method: "SBP", commissionKopecks: 1050 });
      expect(view.payment.commissionKopecks).not.toBe(1050);
      expect(switched.expiresAt).toBe(view.expiresAt);
      expect(switched.methods).toEqual(["SBP", "CARD"]);
      expect((await start(p.id, "CARD")).payment.method).toBe("CARD");
      // a switch is no status change: no event
      expect(await eventsOf(stack, p.id)).toEqual([]);
    });

    test("a fixed method must be the one started, and stays fixed once PENDING", async () => {
      const p = await createPayment(stack, sandbox.shopId, { method: "CARD" });
      expect((await stack.call(rpcs.payments.checkout, { id: p.id })).methods).toEqual(["CARD"]);
      expect(await failure(start(p.id, "SBP"))).toEqual({ code: "CONFLICT", message: "this payment is to be paid by CARD" });
      expect((await start(p.id, "CARD")).payment.status).toBe("PENDING");
      expect((await stack.call(rpcs.payments.checkout, { id: p.id })).methods).toEqual(["CARD"]);
      expect(await failure(start(p.id, "SBP"))).toEqual({ code: "CONFLICT", message: "this payment is to be paid by CARD" });
    });

    test("no switch once the payment is final", async () => {
      const p = await createPayment(stack, sandbox.shopId);
      await start(p.id, "SBP");
      await outcome(p.id, "SUCCESS");
      expect(await failure(start(p.id, "CARD"))).toEqual({ code: "CONFLICT", message: "payment is SUCCESS and cannot be paid" });
    });

    test("a method the shop does not offer is refused", async () => {
      const sbpOnly = await createShop(stack, { sandbox: true, methods: ["SBP"] });
      const p = await createPayment(stack, sbpOnly.shopId);
      expect((await stack.call(rpcs.payments.checkout, { id: p.id })).methods).toEqual(["SBP"]);
      expect(await failure(start(p.id, "CARD"))).toEqual({ code: "CONFLICT", message: "method CARD is not available to this shop" });
    });

    test("concurrent starts with one method all get the same PENDING payment", async () => {
      const p = await createPayment(stack, sandbox.shopId);
      const views = await Promise.all(Array.from({ length: 10 }, () => start(p.id, "SBP")));
      for (const v of views) expect(v.payment).toEqual(views[0]!.payment);
      expect(views[0]!.payment.status).toBe("PENDING");
    });

    test("an unknown payment is not found", async () => {
      expect((await failure(stack.call(rpcs.payments.checkout, { id: Bun.randomUUIDv7() }))).code).toBe("NOT_FOUND");
      expect((await failure(start(Bun.randomUUIDv7()))).code).toBe("NOT_FOUND");
    });
  });

  describe("sandbox outcomes", () => {
    test("SUCCESS sets paidAt and sends SUCCESS", async () => {
      const p = await createPayment(stack, sandbox.shopId);
      await start(p.id, "SBP");
      const view = await outcome(p.id, "SUCCESS");
      expect(view.payment.status).toBe("SUCCESS");
      expect(view.payment.paidAt).not.toBeNull();
      expect(view.expiresAt).toBeNull();
      const [ev] = await eventsWith(p.id, ["SUCCESS"]);
      expect(ev!.event).toMatchObject({ previousStatus: "PENDING", method: "SBP", paidAt: view.payment.paidAt, isTest: true });
      // a double click answers the same
      expect(await outcome(p.id, "SUCCESS")).toEqual(view);
    });

    test("FAILED and EXPIRED each end the payment with their event", async () => {
      for (const o of ["FAILED", "EXPIRED"] as const) {
        const p = await createPayment(stack, sandbox.shopId);
        await start(p.id, "CARD");
        expect((await outcome(p.id, o)).payment).toMatchObject({ status: o, paidAt: null });
        await eventsWith(p.id, [o]);
      }
    });

    test("only a PENDING payment takes an outcome", async () => {
      const p = await createPayment(stack, sandbox.shopId);
      expect(await failure(outcome(p.id, "SUCCESS"))).toEqual({ code: "CONFLICT", message: "payment is CREATED; a sandbox outcome needs a PENDING payment" });
      await start(p.id);
      await outcome(p.id, "EXPIRED");
      expect(await failure(outcome(p.id, "SUCCESS"))).toEqual({ code: "CONFLICT", message: "payment is EXPIRED; a sandbox outcome needs a PENDING payment" });
    });

    test("a live shop's payment takes no sandbox outcome", async () => {
      const live = await createShop(stack, { sandbox: false });
      const p = await createPayment(stack, live.shopId);
      expect(await failure(outcome(p.id, "SUCCESS"))).toEqual({ code: "CONFLICT", message: "only a sandbox payment takes a chosen outcome" });
    });
  });

  describe("refund (sandbox)", () => {
    test("SUCCESS → REFUNDED at once with its event; another refund finds nothing left", async () => {
      const p = await createPayment(stack, sandbox.shopId);
      await start(p.id);
      const paid = (await outcome(p.id, "SUCCESS")).payment;
      const refunded = await refund(p.id);
      expect(refunded).toMatchObject({ paymentId: p.id, amountKopecks: paid.amountKopecks, status: "SUCCEEDED" });
      expect(await stack.call(rpcs.payments.get, { shopId: sandbox.shopId, id: p.id })).toEqual({ ...paid, status: "REFUNDED", refundedKopecks: paid.amountKopecks });
      expect(await failure(refund(p.id))).toEqual({ code: "CONFLICT", message: "only a SUCCESS payment can be refunded; it is already fully refunded" });
      const evs = await eventsWith(p.id, ["SUCCESS", "REFUNDED"]);
      expect(evs[1]!.event).toMatchObject({ status: "REFUNDED", previousStatus: "SUCCESS" });
    });

    test("only a SUCCESS payment can be refunded, and only by its shop", async () => {
      const p = await createPayment(stack, sandbox.shopId);
      expect(await failure(refund(p.id))).toEqual({ code: "CONFLICT", message: "only a SUCCESS payment can be refunded; it is CREATED" });
      const stranger = await createShop(stack);
      expect((await failure(refund(p.id, stranger.shopId))).code).toBe("NOT_FOUND");
    });
  });
});
