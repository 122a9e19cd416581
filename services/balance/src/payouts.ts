import { DomainError, type Payout, type PayoutList } from "@payaccept/contracts";
import { releaseDueReceipts } from "./balance.ts";
import type { LedgerStore, PayoutRow } from "./store/ledger-store.ts";

export type PayoutRequest = { accountId: string; amountKopecks: number; idempotencyKey?: string };

const toPayout = (r: PayoutRow): Payout => ({
  id: r.id,
  accountId: r.accountId,
  amountKopecks: r.amountKopecks,
  status: r.status,
  createdAt: new Date(r.createdAt).toISOString(),
});

/**
 * Records a PENDING payout and takes its amount out of available in one transaction; the
 * conditional debit makes concurrent payouts unable to overdraw. A retry with the same
 * idempotency key returns the first payout instead of paying twice. `waitMs`: how long the caller
 * still waits; nothing is paid out after that (CallerGone).
 */
export function createPayout(store: LedgerStore, req: PayoutRequest, now: number, holdHour: number, waitMs?: number): Promise<PayoutRow> {
  return store.tx(req.accountId, async (t) => {
    if (req.idempotencyKey !== undefined) {
      const earlier = await t.payoutByKey(req.accountId, req.idempotencyKey);
      if (earlier && earlier.amountKopecks !== req.amountKopecks) {
        throw new DomainError("PAYOUT_KEY_REUSED", { key: req.idempotencyKey, amountKopecks: earlier.amountKopecks });
      }
      if (earlier) return earlier;
    }
    await releaseDueReceipts(t, req.accountId, now, holdHour);
    if (!(await t.debitIfAvailable(req.accountId, req.amountKopecks, now))) {
      throw new DomainError("PAYOUT_EXCEEDS_AVAILABLE", { payoutKopecks: req.amountKopecks, availableKopecks: await t.available(req.accountId) });
    }
    return t.insertPayout({
      id: Bun.randomUUIDv7(),
      accountId: req.accountId,
      amountKopecks: req.amountKopecks,
      idempotencyKey: req.idempotencyKey ?? null,
      createdAt: now,
    });
  }, { waitMs });
}

/**
 * The emulated bank transfer: there is no real bank behind this stack, so a PENDING payout is
 * paid at once. A real rail would be called here and mark PAID (or FAILED and credit back) on its answer.
 */
export async function settlePayout(store: LedgerStore, id: string, now: number): Promise<Payout> {
  await store.markPaid(id, now);
  return toPayout((await store.payout(id))!);
}

/** Creates and settles; what the createPayout RPC does. */
export async function payOut(store: LedgerStore, req: PayoutRequest, now: number, holdHour: number, waitMs?: number): Promise<Payout> {
  return settlePayout(store, (await createPayout(store, req, now, holdHour, waitMs)).id, now);
}

/** After a crash between recording and settling, the payouts left PENDING are settled at start. */
export async function settlePendingPayouts(store: LedgerStore, now: number): Promise<number> {
  const ids = await store.pendingPayoutIds();
  for (const id of ids) await settlePayout(store, id, now);
  return ids.length;
}

/** A page, newest first, of the payouts older than startingAfter (a payout id of the previous page). */
export async function listPayouts(store: LedgerStore, accountId: string, limit: number, startingAfter?: string): Promise<PayoutList> {
  const rows = await store.latestPayouts(accountId, limit + 1, startingAfter);
  return { items: rows.slice(0, limit).map(toPayout), hasMore: rows.length > limit };
}
