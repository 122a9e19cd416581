import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs, type Payment, type Refund } from "@payaccept/contracts";
import { ENGINES } from "./harness/engines.ts";
import { eventually, Stack } from "./harness/stack.ts";
import { BankApp, createPayment, createShop, failure, refundEventsOf } from "./payments-fixtures.ts";

/**
 * The live refund saga interrupted anywhere (docs/payments.md, "Refunds"): balance paused past
 * payments' request timeout, payments or balance SIGKILLed between the balance hold and the end of
 * the refund. Every refund ends SUCCEEDED or FAILED within bounded time, with no operator, and the
 * balance matches the payments: nothing lost, nothing doubled. Each test uses its own account, so
 * its figures are its own; a today's receipt is frozen, and its refunds are taken from it. Once on
 * SQLite, once with every store on PostgreSQL, where the locks are named rather than the file's.
 */
setDefaultTimeout(120_000);

describe.each(ENGINES)("the refund saga on %s", (engine) => {
  let stack: Stack;
  let bank: BankApp;

  beforeAll(async () => {
    stack = await Stack.start({
      services: ["directory", "payments", "acquirer-emulator", "balance"],
      postgres: engine === "postgres",
      // A short lease, so an interrupted refund is retried within seconds. The default request
      // timeout (3 s): the balance refuses a hold its caller has stopped waiting for, and ten refunds
      // queued on one account's lock on a loaded machine outlast a shorter one.
      env: { ACQUIRER_TIMEOUT_MS: "4000", REFUND_RETRY_MS: "2000", TIMER_SWEEP_MS: "200" },
    });
    bank = new BankApp(stack);
  });
  afterAll(async () => {
    // A test that failed midway must not leave a process stopped.
    for (const name of ["balance", "acquirer-emulator"] as const) stack?.service(name).proc?.kill("SIGCONT");
    await stack?.stop();
  });

  const CONVERGED_MS = 30_000;
  const signal = (name: "balance" | "acquirer-emulator", sig: "SIGSTOP" | "SIGCONT") => stack.service(name).proc!.kill(sig);

  /** A live SBP payment paid today in the bank app, its receipt applied by the balance (frozen). */
  async function paidToday(amountKopecks: number): Promise<{ p: Payment; net: number; accountId: string }> {
    const shop = await createShop(stack, { sandbox: false });
    const created = await createPayment(stack, shop.shopId, { amountKopecks, method: "SBP" });
    const view = await stack.call(rpcs.payments.start, { id: created.id, method: "SBP" });
    await bank.sbp(view.sbp!.qrPayload, "pay");
    const p = await eventually(async () => {
      const now = await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: created.id });
      return now.status === "SUCCESS" && now;
    }, CONVERGED_MS);
    const net = p.amountKopecks - p.commissionKopecks;
    await eventually(async () => (await balanceOf(shop.accountId)).frozenKopecks === net, CONVERGED_MS);
    return { p, net, accountId: shop.accountId };
  }

  const balanceOf = (accountId: string) => stack.call(rpcs.balance.get, { accountId });
  const shopOf = async (p: Payment) => (await stack.call(rpcs.payments.owner, { id: p.id })).shopId;
  const refundsOf = async (p: Payment) => (await stack.call(rpcs.payments.listRefunds, { shopId: await shopOf(p), id: p.id })).items;
  const refund = async (p: Payment, req: { amountKopecks?: number } = {}) => stack.call(rpcs.payments.refund, { shopId: await shopOf(p), id: p.id, ...req }, 10_000);

  /** Waits until no refund of the payment is PENDING, then returns them. */
  const settled = (p: Payment) =>
    eventually(async () => {
      const items = await refundsOf(p);
      return items.every((r) => r.status !== "PENDING") && items;
    }, CONVERGED_MS);

  /**
   * The balance matches the payments once the refund events are applied: the receipt's net minus
   * the balance shares of the SUCCEEDED refunds (all of them came out of the receipt's frozen day).
   */
  async function balanceMatches(p: Payment, net: number, accountId: string): Promise<void> {
    const ended = (await settled(p)).length;
    const events = await eventually(async () => {
      const all = await refundEventsOf(stack, p.id);
      return all.length === ended && all;
    }, CONVERGED_MS);
    const taken = events.filter((e) => e.event.status === "SUCCEEDED").reduce((sum, e) => sum + e.event.balanceKopecks, 0);
    await eventually(async () => {
      const b = await balanceOf(accountId);
      return b.frozenKopecks === net - taken && b.availableKopecks === 0;
    }, CONVERGED_MS);
    const payment = await stack.call(rpcs.payments.get, { shopId: await shopOf(p), id: p.id });
    const succeeded = (await refundsOf(p)).filter((r) => r.status === "SUCCEEDED").reduce((sum, r) => sum + r.amountKopecks, 0);
    expect(payment.refundedKopecks).toBe(succeeded);
    expect(payment.status).toBe(succeeded === payment.amountKopecks ? "REFUNDED" : "SUCCESS");
  }

  describe("concurrency", () => {
    test("10 refunds of one payment at once never refund more than its amount", async () => {
      const { p, net, accountId } = await paidToday(100_000);
      const results = await Promise.all(Array.from({ length: 10 }, () => refund(p, { amountKopecks: 30_000 }).catch((e: unknown) => e)));
      const made = results.filter((r): r is Refund => !(r instanceof Error));
      expect(made.map((r) => r.status)).toEqual(["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]);
      const refusals = await Promise.all(results.filter((r) => r instanceof Error).map((e) => failure(Promise.reject(e))));
      expect(refusals.map((f) => f.code)).toEqual(Array(7).fill("CONFLICT"));
      await balanceMatches(p, net, accountId);
      expect((await refund(p)).amountKopecks).toBe(10_000);
      await balanceMatches(p, net, accountId);
      expect((await balanceOf(accountId)).frozenKopecks).toBe(0);
    });
  });

  describe("a refund slower than NATS_HEDGE_AFTER", () => {
    test("the copy of the call waits for the first one's outcome: the merchant hears SUCCEEDED, not a PENDING that ends a moment later", async () => {
      const { p } = await paidToday(120_000);
      // Paused for longer than the caller's NATS_HEDGE_AFTER (300 ms), so a copy of the refund call
      // reaches payments while the first copy waits for the balance, and shorter than payments' own
      // request timeout (3 s), so the first copy then ends the refund.
      signal("balance", "SIGSTOP");
      const resumed = Bun.sleep(700).then(() => signal("balance", "SIGCONT"));
      const answer = await refund(p).finally(() => resumed);
      expect(answer.status).toBe("SUCCEEDED");
      expect(await refundsOf(p)).toEqual([expect.objectContaining({ id: answer.id, status: "SUCCEEDED" })]);
    });
  });

  describe("balance paused past the request timeout", () => {
    test("the refund answers PENDING; once balance resumes, the sweeper completes it and the stale hold is the refund's own", async () => {
      const { p, net, accountId } = await paidToday(150_000);
      signal("balance", "SIGSTOP");
      const pending = await refund(p).finally(() => Bun.sleep(1_500).then(() => signal("balance", "SIGCONT")));
      expect(pending.status).toBe("PENDING");
      const [done] = await settled(p);
      expect(done).toMatchObject({ id: pending.id, status: "SUCCEEDED" });
      await balanceMatches(p, net, accountId);
      expect(await balanceOf(accountId)).toMatchObject({ availableKopecks: 0, frozenKopecks: 0 });
    });

    test("a refund the bank then declines ends FAILED and its late hold is given back: the balance shows nothing taken", async () => {
      const { p, net, accountId } = await paidToday(150_000);
      signal("balance", "SIGSTOP");
      // The emulator declines amounts ending in 13 kopecks.
      const pending = await refund(p, { amountKopecks: 20_013 }).finally(() => Bun.sleep(1_500).then(() => signal("balance", "SIGCONT")));
      expect(pending.status).toBe("PENDING");
      const [done] = await settled(p);
      expect(done).toMatchObject({ status: "FAILED", failureReason: "the acquirer declined the refund: refund_declined" });
      await balanceMatches(p, net, accountId);
      expect(await balanceOf(accountId)).toMatchObject({ availableKopecks: 0, frozenKopecks: net });
    });
  });

  describe("a crash between the balance hold and the end of the refund", () => {
    /** Starts a refund and returns once balance holds its share while the acquirer (paused) has not answered. */
    async function heldWhileAcquirerPaused(p: Payment, net: number, accountId: string): Promise<Promise<unknown>> {
      signal("acquirer-emulator", "SIGSTOP");
      const call = refund(p).catch((e: unknown) => e);
      await eventually(async () => (await balanceOf(accountId)).frozenKopecks < net, CONVERGED_MS);
      return call;
    }

    test("payments SIGKILLed: after its restart the sweeper finishes the refund once", async () => {
      const { p, net, accountId } = await paidToday(120_000);
      const call = await heldWhileAcquirerPaused(p, net, accountId);
      await stack.kill("payments");
      signal("acquirer-emulator", "SIGCONT");
      await call;
      stack.service("payments").start();
      await stack.service("payments").waitReady();
      const items = await settled(p);
      expect(items.map((r) => r.status)).toEqual(["SUCCEEDED"]);
      await balanceMatches(p, net, accountId);
      expect(await balanceOf(accountId)).toMatchObject({ availableKopecks: 0, frozenKopecks: 0 });
    });

    test("balance SIGKILLed: the refund completes, and the restarted balance applies it once", async () => {
      const { p, net, accountId } = await paidToday(120_000);
      const call = await heldWhileAcquirerPaused(p, net, accountId);
      await stack.kill("balance");
      signal("acquirer-emulator", "SIGCONT");
      // The answer may come in time or not (then the refund is PENDING and the sweeper ends it).
      await call;
      stack.service("balance").start();
      await stack.service("balance").waitReady();
      expect((await settled(p)).map((r) => r.status)).toEqual(["SUCCEEDED"]);
      await balanceMatches(p, net, accountId);
      expect(await balanceOf(accountId)).toMatchObject({ availableKopecks: 0, frozenKopecks: 0 });
    });
  });
});
