import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs } from "@payaccept/contracts";
import { BalanceFeed, longAgo, newAccount, payableAccount } from "./balance-fixtures.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";
import { paymentEvent } from "../services/balance/src/testing.ts";

setDefaultTimeout(60_000);

/**
 * A service on PostgreSQL across a server restart and an outage (docs/replicas.md, "Pointing a
 * service at PostgreSQL"): balance as a real process, its ledger on a throwaway PostgreSQL.
 */
describe("balance on PostgreSQL when the server restarts or goes away", () => {
  let stack: Stack;
  let feed: BalanceFeed;
  beforeAll(async () => {
    stack = await Stack.start({ services: ["balance", "directory"], postgres: true });
    feed = await BalanceFeed.open(stack);
  }, STACK_START_MS);
  afterAll(() => stack?.stop());

  const readyz = async () => {
    const res = await fetch(`${stack.url("balance")}/readyz`);
    return { status: res.status, text: await res.text() };
  };

  test("the first reads and a payout right after a restart succeed, none answered as an error", async () => {
    const accountId = await payableAccount(stack);
    await feed.fund(accountId, 10_000);
    // Open several pooled connections, so that several hold a session the restart ends.
    await Promise.all(Array.from({ length: 6 }, () => feed.balanceOf(accountId)));
    // Paused across the restart, as a busy process is. (A process whose event loop is free reads
    // the server's goodbye on each idle connection before the next request, so the pool drops
    // them; the stale-connection case itself is packages/platform/src/database.test.ts's.)
    const balance = stack.service("balance").proc!;
    balance.kill("SIGSTOP");
    try {
      stack.pg!.restart();
    } finally {
      balance.kill("SIGCONT");
    }
    const reads = await Promise.all(Array.from({ length: 6 }, () => feed.balanceOf(accountId)));
    expect(reads.map((r) => r.availableKopecks)).toEqual(Array(6).fill(10_000));
    const payout = await stack.call(rpcs.balance.createPayout, { accountId, amountKopecks: 4_000 });
    expect(payout).toMatchObject({ amountKopecks: 4_000 });
    expect((await feed.balanceOf(accountId)).availableKopecks).toBe(6_000);
  });

  test("/readyz answers 503 naming BALANCE_DATABASE_URL while the server is down, and the events wait for it", async () => {
    expect(JSON.parse((await readyz()).text)).toMatchObject({ status: "ready", checks: { database: true, nats: true } });
    const accountId = newAccount();
    stack.pg!.down();
    try {
      const down = await eventually(async () => {
        const r = await readyz();
        return r.status === 503 && r;
      });
      expect(JSON.parse(down.text)).toMatchObject({ status: "not ready", checks: { database: false, nats: true }, down: { database: expect.stringMatching(/^BALANCE_DATABASE_URL: /) } });
      expect(down.text).not.toContain(stack.pg!.url);
      await feed.publish(paymentEvent({ accountId, paidAt: longAgo(), amountKopecks: 2_000, commissionKopecks: 0 }));
    } finally {
      stack.pg!.up();
    }
    await eventually(async () => (await readyz()).status === 200);
    await eventually(async () => (await feed.balanceOf(accountId)).availableKopecks === 2_000, 30_000);
  });
});
