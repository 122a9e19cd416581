import type { Balance } from "@payaccept/contracts";
import { lastReleasedDay } from "./moscow-time.ts";
import type { LedgerStore } from "./store/ledger-store.ts";

/**
 * Moves the account's released hold buckets into its available total. Touches only the buckets
 * of released days (an index range), so the cost does not depend on how long the history is.
 * Call inside a transaction. Returns the cut-off day used.
 */
export function releaseDueReceipts(store: LedgerStore, accountId: string, now: number, holdHour: number): string {
  const cutoff = lastReleasedDay(now, holdHour);
  const due = store.releasedFrozen(accountId, cutoff);
  if (due.buckets > 0) {
    store.deleteReleasedFrozen(accountId, cutoff);
    store.adjustAvailable(accountId, due.total, now);
  }
  return cutoff;
}

export function readBalance(store: LedgerStore, accountId: string, now: number, holdHour: number): Balance {
  return store.tx(() => {
    const cutoff = releaseDueReceipts(store, accountId, now, holdHour);
    return {
      availableKopecks: store.available(accountId),
      frozenKopecks: store.frozenTotal(accountId, cutoff),
      holdHour,
    };
  });
}

