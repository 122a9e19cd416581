import type { Balance } from "@payaccept/contracts";
import { lastReleasedDay } from "@payaccept/domain";
import type { LedgerOps, LedgerStore } from "./store/ledger-store.ts";

/**
 * Moves the account's released hold buckets into its available total. Touches only the buckets
 * of released days (an index range), so the cost does not depend on how long the history is.
 * Call inside a transaction. Returns the cut-off day used.
 */
export async function releaseDueReceipts(t: LedgerOps, accountId: string, now: number, holdHour: number): Promise<string> {
  const cutoff = lastReleasedDay(now, holdHour);
  const due = await t.releasedFrozen(accountId, cutoff);
  if (due.buckets > 0) {
    await t.deleteReleasedFrozen(accountId, cutoff);
    await t.adjustAvailable(accountId, due.total, now);
  }
  return cutoff;
}

/**
 * The GET is frequent and read-only: one statement, no lock, when no hold bucket is due (the
 * usual case). Only when one is due does it take the account's transaction to release it first.
 */
export async function readBalance(store: LedgerStore, accountId: string, now: number, holdHour: number): Promise<Balance> {
  const cutoff = lastReleasedDay(now, holdHour);
  const stored = await store.balanceSnapshot(accountId, cutoff);
  const settled =
    stored.dueBuckets === 0
      ? stored
      : await store.tx(accountId, async (t) => {
          await releaseDueReceipts(t, accountId, now, holdHour);
          return t.balanceSnapshot(accountId, cutoff);
        });
  return { availableKopecks: settled.availableKopecks, frozenKopecks: settled.frozenKopecks, holdHour };
}

