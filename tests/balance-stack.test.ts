import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { SQL } from "bun";
import { jetstreamManager } from "@nats-io/jetstream";
import { DomainError, PAYMENTS_STREAM, rpcs } from "@payaccept/contracts";
import { ENGINES, holdOf, nextEvent, paymentEvent, refundEvent } from "../services/balance/src/testing.ts";
import { call } from "@payaccept/platform";
import { BalanceFeed, justNow, longAgo, newAccount, payableAccount } from "./balance-fixtures.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";

/**
 * The balance service as a real process behind a real nats-server, fed exactly as payments feeds
 * it: PaymentEvents on payments.events.<STATUS> with Nats-Msg-Id <paymentId>:<status>. Once on
 * its SQLite file, once on a throwaway PostgreSQL (BALANCE_DATABASE_URL).
 */
// Each test starts or restarts real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(60_000);
/**
 * How long a call of a race on one account may wait: a liveness bound. Each waits for the
 * account's lock behind the others, which takes seconds on a machine busy with other test files.
 */
const PATIENT_MS = 30_000;

describe.each(ENGINES)("balance on %s", (engine) => {
  let stack: Stack;
  let feed: BalanceFeed;
  beforeAll(async () => {
    // The directory too: the admin CLI asks it whether an account exists before the ledger. A short
    // ack wait: the crash tests wait for what the killed process held to be delivered again.
    stack = await Stack.start({ services: ["balance", "directory"], env: { HOLD_HOUR: "12", BALANCE_ACK_WAIT: "2s" }, postgres: engine === "postgres" });
    feed = await BalanceFeed.open(stack);
  }, STACK_START_MS);
  afterAll(() => stack?.stop());

  const balanceOf = (accountId: string) => feed.balanceOf(accountId);
  /**
   * Holds what a payout on the account must wait for, from outside the service: the account's row
   * lock on PostgreSQL, the file's write lock on SQLite. Returns its release.
   */
  const lockAccount = async (accountId: string): Promise<() => Promise<void>> => {
    if (engine === "sqlite") {
      const db = new Database(join(stack.dataDir, "balance.db"));
      db.run("BEGIN IMMEDIATE");
      return async () => {
        db.run("ROLLBACK");
        db.close();
      };
    }
    const sql = new SQL(stack.pg!.url);
    const conn = await sql.reserve();
    await conn`begin`;
    await conn`select 1 from balance.accounts where account_id = ${accountId} for update`;
    return async () => {
      await conn`rollback`;
      conn.release();
      await sql.close();
    };
  };
  const rejection = async (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

  describe("ledger fed by the payment-event stream", () => {
    test("two shops of one account add up: released receipts are available, today's are frozen, commission is kept", async () => {
      const accountId = newAccount();
      await feed.publishAll([
        paymentEvent({ accountId, shopId: "shop-a", paidAt: longAgo(), amountKopecks: 10_000, commissionKopecks: 70 }),
        paymentEvent({ accountId, shopId: "shop-b", paidAt: longAgo(), amountKopecks: 20_000, commissionKopecks: 500 }),
        paymentEvent({ accountId, shopId: "shop-b", paidAt: justNow(), amountKopecks: 5_000, commissionKopecks: 35 }),
      ]);
      await feed.consumed();
      expect(await balanceOf(accountId)).toEqual({ availableKopecks: 29_430, frozenKopecks: 4_965, holdHour: 12 });
    });

    test("an event published again under another Nats-Msg-Id (past the dedupe window) is counted once", async () => {
      const accountId = newAccount();
      const paid = paymentEvent({ accountId, paidAt: longAgo(), amountKopecks: 10_000, commissionKopecks: 0 });
      const first = await feed.publish(paid);
      const deduped = await feed.publish(paid);
      const bypass = await feed.publish(paid, `${paid.eventId}:resent`);
      expect([first.duplicate, deduped.duplicate, bypass.duplicate]).toEqual([false, true, false]);
      await feed.consumed();
      expect((await balanceOf(accountId)).availableKopecks).toBe(10_000);
    });

    test("sandbox payments never touch a balance", async () => {
      const accountId = newAccount();
      const sandbox = paymentEvent({ accountId, isTest: true, paidAt: longAgo(), amountKopecks: 50_000 });
      await feed.publishAll([sandbox, paymentEvent({ accountId, isTest: true, paidAt: justNow() })]);
      await feed.publish(nextEvent(sandbox, "REFUNDED", justNow()));
      await feed.consumed();
      expect(await balanceOf(accountId)).toEqual({ availableKopecks: 0, frozenKopecks: 0, holdHour: 12 });
    });

    test("a late SUCCESS after EXPIRED counts once, by its paidAt", async () => {
      const accountId = newAccount();
      const expired = paymentEvent({ accountId, status: "EXPIRED", paidAt: null, amountKopecks: 3_000, commissionKopecks: 21 });
      await feed.publish(expired);
      await feed.publish({ ...nextEvent(expired, "SUCCESS", justNow()), paidAt: justNow() });
      await feed.consumed();
      expect(await balanceOf(accountId)).toMatchObject({ availableKopecks: 0, frozenKopecks: 2_979 });
    });

    test("SIGKILLed mid-stream and restarted, with the relay resending part of the stream, the figures stay exact", async () => {
      const accountId = newAccount();
      const events = Array.from({ length: 3000 }, () =>
        paymentEvent({ accountId, paidAt: longAgo(), amountKopecks: 1_000, commissionKopecks: 7 }),
      );
      const publishing = feed.publishAll(events);
      await eventually(async () => (await balanceOf(accountId)).availableKopecks > 0, 30_000, 10);
      await stack.kill("balance");
      await publishing;
      await Promise.all(events.slice(0, 500).map((e) => feed.publish(e, `${e.eventId}:after-crash`)));
      await stack.restart("balance");
      // Events the killed process had received but not acked come again once their ack wait is over.
      const exact = { availableKopecks: 3000 * 993, frozenKopecks: 0, holdHour: 12 };
      await eventually(async () => Bun.deepEquals(await balanceOf(accountId), exact), 60_000);
      await feed.consumed();
      expect(await balanceOf(accountId)).toEqual(exact);
    });

    test("two replicas sharing the consumers, one SIGKILLed mid-stream: the other applies the rest, each event once", async () => {
      const accountId = newAccount();
      const second = await stack.addReplica("balance");
      try {
        const events = Array.from({ length: 2000 }, () => paymentEvent({ accountId, paidAt: longAgo(), amountKopecks: 500, commissionKopecks: 5 }));
        const publishing = feed.publishAll(events);
        await eventually(async () => (await balanceOf(accountId)).availableKopecks > 0, 30_000, 10);
        await stack.kill("balance");
        await publishing;
        // The survivor alone: what the killed one held unacked comes to it after the ack wait.
        const exact = { availableKopecks: 2000 * 495, frozenKopecks: 0, holdHour: 12 };
        await eventually(async () => Bun.deepEquals(await balanceOf(accountId), exact), 60_000);
        await stack.restart("balance");
        await feed.consumed();
        expect(await balanceOf(accountId)).toEqual(exact);
      } finally {
        await second.stop("SIGTERM", 5000);
      }
    });
  });

  describe("losing the consumer", () => {
    test("a deleted durable consumer stops the process; restarted, it replays the whole stream and counts nothing twice", async () => {
      const accountId = newAccount();
      await feed.fund(accountId, 12_345);
      const exited = stack.service("balance").proc!.exited;
      await (await jetstreamManager(stack.nc)).consumers.delete(PAYMENTS_STREAM, "balance");
      await exited;
      await stack.restart("balance");
      await feed.consumed();
      expect(await balanceOf(accountId)).toEqual({ availableKopecks: 12_345, frozenKopecks: 0, holdHour: 12 });
    });
  });

  describe("payouts", () => {
    test("20 concurrent payouts of 60% of available: exactly one is paid, the others are refused", async () => {
      const accountId = await payableAccount(stack);
      await feed.fund(accountId, 100_000);
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, () => stack.call(rpcs.balance.createPayout, { accountId, amountKopecks: 60_000 })),
      );
      const paid = results.filter((r) => r.status === "fulfilled");
      const refused = results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason);
      expect(paid).toHaveLength(1);
      expect(refused).toHaveLength(19);
      for (const e of refused) {
        expect(e).toMatchObject({ code: "CONFLICT", reason: "PAYOUT_EXCEEDS_AVAILABLE", params: { payoutKopecks: 60_000, availableKopecks: 40_000 } });
      }
      expect((await balanceOf(accountId)).availableKopecks).toBe(40_000);
      const { items } = await stack.call(rpcs.balance.listPayouts, { accountId });
      expect(items).toEqual([expect.objectContaining({ accountId, amountKopecks: 60_000, status: "PENDING" })]);
    });

    test("a payout is recorded in the audit log in its requester's name, once however often it is retried", async () => {
      const accountId = await payableAccount(stack);
      await feed.fund(accountId, 10_000);
      const actor = { kind: "member" as const, id: "user-7", label: "accountant@example.com", ip: "203.0.113.8", userAgent: "Firefox" };
      const request = { accountId, amountKopecks: 2_500, idempotencyKey: `audit-${accountId}` };
      const [payout] = await Promise.all([1, 2, 3].map(() => call(stack.nc, rpcs.balance.createPayout, request, 5_000, { actor, requestId: "req-payout-1" })));
      const payoutEntries = async () => (await stack.call(rpcs.directory.auditLog, { accountId, action: "payout.created", limit: 10 })).items;
      await eventually(async () => (await payoutEntries()).length > 0, 20_000, 200);
      // Each copy records the same id (payout.created:<payoutId>): one row whenever they arrive.
      const logged = await payoutEntries();
      expect(logged).toEqual([
        {
          id: `payout.created:${payout!.id}`,
          at: payout!.createdAt,
          action: "payout.created",
          actor,
          accountId,
          shopId: null,
          target: { type: "payout", id: payout!.id },
          before: null,
          after: { amountKopecks: 2_500, status: payout!.status },
          requestId: "req-payout-1",
        },
      ]);
    });

    test("an account without payout details cannot pay out: nothing is taken", async () => {
      const { accountId } = await stack.call(rpcs.directory.createAccount, {});
      await feed.fund(accountId, 10_000);
      expect(await rejection(stack.call(rpcs.balance.createPayout, { accountId, amountKopecks: 1_000 }))).toMatchObject({ code: "CONFLICT", reason: "PAYOUT_DETAILS_MISSING" });
      expect((await balanceOf(accountId)).availableKopecks).toBe(10_000);
    });

    test("concurrent retries with one idempotency key pay once", async () => {
      const accountId = await payableAccount(stack);
      await feed.fund(accountId, 10_000);
      const request = { accountId, amountKopecks: 4_000, idempotencyKey: "payout-2025-03-10" };
      const payouts = await Promise.all(Array.from({ length: 10 }, () => stack.call(rpcs.balance.createPayout, request)));
      expect(new Set(payouts.map((p) => p.id)).size).toBe(1);
      expect((await balanceOf(accountId)).availableKopecks).toBe(6_000);
    });

    test("a payout whose caller stopped waiting while the account was locked takes nothing", async () => {
      const accountId = await payableAccount(stack);
      await feed.fund(accountId, 9_000);
      const release = await lockAccount(accountId);
      let refused: unknown;
      try {
        refused = await rejection(stack.call(rpcs.balance.createPayout, { accountId, amountKopecks: 4_000 }, 2_000));
      } finally {
        await release();
      }
      expect(refused).toMatchObject({ reason: "SERVICE_UNAVAILABLE" });
      // Once the lock is free the payout either gives up, as its caller did, or is made: the worse bug.
      const gaveUp = () => stack.logLines("balance").some((l) => l.msg === "not taken: the caller stopped waiting before the account was free" && l.accountId === accountId);
      const payouts = async () => (await stack.call(rpcs.balance.listPayouts, { accountId })).items;
      await eventually(async () => gaveUp() || (await payouts()).length > 0);
      expect(await payouts()).toEqual([]);
      expect((await balanceOf(accountId)).availableKopecks).toBe(9_000);
      expect(gaveUp()).toBe(true);
    });

    test("payouts and refund holds spread over two replicas never spend more than available", async () => {
      const accountId = await payableAccount(stack);
      const receipt = await feed.fund(accountId, 50_000);
      const second = await stack.addReplica("balance");
      try {
        // The queue group hands each request to either replica; 30 requests of 4 000 for 50 000.
        const calls = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? ("hold" as const) : ("payout" as const)));
        const results = await Promise.allSettled(
          calls.map((kind) =>
            kind === "hold"
              ? stack.call(rpcs.balance.reserveRefund, holdOf(receipt, 4_000), PATIENT_MS)
              : stack.call(rpcs.balance.createPayout, { accountId, amountKopecks: 4_000 }, PATIENT_MS),
          ),
        );
        // Every refusal is the money running out, never a timeout or a lock failure: a caller told
        // SERVICE_UNAVAILABLE may have had its payout made all the same.
        const refusals = results.flatMap((r, i) => (r.status === "rejected" ? [[calls[i], (r.reason as DomainError).reason, (r.reason as DomainError).params]] : []));
        const refusal = { payout: "PAYOUT_EXCEEDS_AVAILABLE", hold: "REFUND_EXCEEDS_AVAILABLE" };
        expect(refusals).toEqual(refusals.map(([kind]) => [kind, refusal[kind as keyof typeof refusal], expect.objectContaining({ availableKopecks: 2_000 })]));
        expect(results.filter((r) => r.status === "fulfilled").length).toBe(12);
        expect((await balanceOf(accountId)).availableKopecks).toBe(50_000 - 12 * 4_000);
        // The payouts made are exactly those answered.
        const { items } = await stack.call(rpcs.balance.listPayouts, { accountId, limit: 100 });
        const answered = results.flatMap((r, i) => (r.status === "fulfilled" && calls[i] === "payout" ? [(r.value as { id: string }).id] : []));
        expect(items.map((p) => p.id).sort()).toEqual(answered.sort());
        // The second replica answered some of them (paid, held or refused).
        const metrics = await (await fetch(`${second.url}/metrics`)).text();
        expect([rpcs.balance.createPayout.subject, rpcs.balance.reserveRefund.subject].some((subject) => metrics.includes(`nats_rpc_handled_total{subject="${subject}"`))).toBe(true);
      } finally {
        await second.stop("SIGTERM", 5000);
      }
    });
  });

  describe("refund holds, as the payments refund saga uses them", () => {
    test("hold, then the refund's SUCCEEDED event: the money leaves once", async () => {
      const accountId = await payableAccount(stack);
      const receipt = await feed.fund(accountId, 8_000);
      const refundId = Bun.randomUUIDv7();
      const hold = holdOf(receipt, 8_000, refundId);
      expect(await stack.call(rpcs.balance.reserveRefund, hold)).toEqual({ reserved: true });
      expect(await stack.call(rpcs.balance.reserveRefund, hold)).toEqual({ reserved: true });
      expect((await balanceOf(accountId)).availableKopecks).toBe(0);
      const succeeded = refundEvent(receipt, { refundId, balanceKopecks: 8_000, status: "SUCCEEDED", at: Date.now() });
      await feed.publishRefund(succeeded);
      await feed.publishRefund(succeeded);
      // The REFUNDED payment event moves nothing: the refund event did.
      await feed.publish(nextEvent(receipt, "REFUNDED", justNow()));
      await feed.consumed();
      // A late copy of the hold request takes nothing more.
      expect(await stack.call(rpcs.balance.reserveRefund, hold)).toEqual({ reserved: true });
      expect(await balanceOf(accountId)).toMatchObject({ availableKopecks: 0, frozenKopecks: 0 });
    });

    test("a hold beyond available is refused; a FAILED refund gives its hold back, and a late hold request then takes nothing", async () => {
      const accountId = await payableAccount(stack);
      const receipt = await feed.fund(accountId, 5_000);
      const tooMuch = await rejection(stack.call(rpcs.balance.reserveRefund, holdOf(receipt, 5_001)));
      expect(tooMuch).toMatchObject({ code: "CONFLICT", reason: "REFUND_EXCEEDS_AVAILABLE", params: { neededKopecks: 5_001, availableKopecks: 5_000, frozenKopecks: 0 } });
      const refundId = Bun.randomUUIDv7();
      const hold = holdOf(receipt, 5_000, refundId);
      await stack.call(rpcs.balance.reserveRefund, hold);
      expect((await balanceOf(accountId)).availableKopecks).toBe(0);
      await feed.publishRefund(refundEvent(receipt, { refundId, balanceKopecks: 5_000, status: "FAILED", at: Date.now() }));
      await eventually(async () => (await balanceOf(accountId)).availableKopecks === 5_000);
      expect(await stack.call(rpcs.balance.reserveRefund, hold)).toEqual({ reserved: false });
      expect((await balanceOf(accountId)).availableKopecks).toBe(5_000);
    });
  });

  describe("admin CLI", () => {
    const admin = async (...args: string[]) => {
      const { stdout, stderr, code } = await stack.admin(args);
      return { out: stdout.trim(), err: stderr.trim(), code };
    };
    /** An account the directory knows, as shop:create or a dashboard sign-up makes it, with its payout details. */
    const directoryAccount = () => payableAccount(stack);

    test("balance:get, payout:create and payout:list operate the running service", async () => {
      const accountId = await directoryAccount();
      await feed.fund(accountId, 7_000);
      const payout = await admin("payout:create", "--account", accountId, "--amount", "2500", "--json");
      expect(payout.code).toBe(0);
      expect(JSON.parse(payout.out)).toMatchObject({ accountId, amountKopecks: 2_500, status: "PENDING" });
      const balance = await admin("balance:get", "--account", accountId, "--json");
      expect(JSON.parse(balance.out)).toEqual({ availableKopecks: 4_500, frozenKopecks: 0, holdHour: 12 });
      const list = await admin("payout:list", "--account", accountId, "--json");
      expect(JSON.parse(list.out).items).toEqual([JSON.parse(payout.out)]);
    });

    test("a payout beyond available fails with the reason and exit code 1; a bad amount is a usage error", async () => {
      const accountId = await directoryAccount();
      const refused = await admin("payout:create", "--account", accountId, "--amount", "100");
      expect(refused).toMatchObject({ code: 1, err: "error: CONFLICT: payout of 1.00 RUB (100 kopecks) exceeds the available balance 0.00 RUB (0 kopecks)" });
      // With --json the same refusal is one JSON document on stdout.
      const refusedJson = await admin("payout:create", "--account", accountId, "--amount", "100", "--json");
      expect(refusedJson.code).toBe(1);
      expect(JSON.parse(refusedJson.out)).toEqual({
        error: {
          code: "CONFLICT",
          message: "payout of 1.00 RUB (100 kopecks) exceeds the available balance 0.00 RUB (0 kopecks)",
          reason: "PAYOUT_EXCEEDS_AVAILABLE",
          params: { payoutKopecks: 100, availableKopecks: 0 },
        },
      });
      const bad = await admin("payout:create", "--account", accountId, "--amount", "12.5");
      expect(bad.code).toBe(2);
      expect(bad.err).toStartWith("--amount must be a positive whole number");
    });

    test("an account the directory does not know is NOT_FOUND, never an empty balance or a payout over 0,00", async () => {
      const unknown = newAccount();
      for (const args of [["balance:get"], ["payout:list"], ["payout:create", "--amount", "100"]]) {
        const r = await admin(...args, "--account", unknown, "--json");
        expect({ args, code: r.code, out: JSON.parse(r.out) }).toEqual({
          args,
          code: 1,
          out: { error: { code: "NOT_FOUND", message: "no such account", reason: "ACCOUNT_NOT_FOUND", params: {} } },
        });
      }
      expect(await admin("balance:get", "--account", unknown)).toMatchObject({ code: 1, err: "error: NOT_FOUND: no such account" });
    });
  });
});
