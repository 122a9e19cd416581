import { describe, expect, test } from "bun:test";
import { eventually, testLog as log } from "../../../tests/harness/stack.ts";
import { payoutEventsRelay } from "./payout-outbox.ts";
import { createPayout } from "./payouts.ts";
import { fundAccount, ledgerPerTest } from "./testing.ts";

const NOW = Date.parse("2025-03-10T12:00:00Z");
const HOLD_HOUR = 3;

// The relay's timing is the same on both engines; the outbox's reads and marks are tested with the store.
describe("the payout events' relay (sqlite)", () => {
  const ledger = ledgerPerTest("sqlite");

  test("an event committed while a pass is publishing goes out right after that pass, not at the next sweep", async () => {
    await fundAccount(ledger.store, "acc", 100_000, NOW);
    await createPayout(ledger.store, { accountId: "acc", amountKopecks: 1_000 }, NOW, HOLD_HOUR);
    const published: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered = () => {};
    const publishing = new Promise<void>((resolve) => (entered = resolve));
    const publish = async (_subject: string, _data: Uint8Array, msgID: string) => {
      if (published.length === 0) {
        entered();
        await held;
      }
      published.push(msgID);
    };
    // A sweep an hour away: only a wake can publish the second event within the test.
    const relay = payoutEventsRelay({ store: ledger.store, publish, now: () => NOW, log }, 3_600_000);
    relay.start();
    try {
      await publishing;
      const second = await createPayout(ledger.store, { accountId: "acc", amountKopecks: 2_000 }, NOW, HOLD_HOUR);
      relay.wake();
      release();
      await eventually(() => published.length === 2);
      expect(published[1]).toBe(`payout:${second.payout.payout.id}:PENDING`);
      expect(await ledger.store.unpublishedPayoutEvents(10)).toEqual([]);
    } finally {
      await relay.stop();
    }
  });
});
