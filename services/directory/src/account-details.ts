import { DomainError, samePayoutAccount, type AccountDetails, type AccountDetailsView, type PayoutAccount } from "@payaccept/contracts";
import { entryOf, type Caller } from "./audit/entries.ts";
import type { DirectoryDeps } from "./directory.ts";
import type { AccountDetailsRow } from "./store/schema.ts";

type DetailsDeps = Pick<DirectoryDeps, "store" | "log" | "now" | "payoutHoldMs">;

const payoutOf = (r: AccountDetailsRow): PayoutAccount => ({
  bik: r.bik,
  bankName: r.bankName,
  correspondentAccount: r.correspondentAccount,
  account: r.settlementAccount,
  recipientName: r.recipientName,
});
const detailsOf = (r: AccountDetailsRow): AccountDetails => ({ legalForm: r.legalForm, name: r.name, inn: r.inn, ogrn: r.ogrn, kpp: r.kpp, payout: payoutOf(r) });

/** The details as callers read them; the hold is worked out with the current PAYOUT_ACCOUNT_HOLD, against now. */
export function detailsView(deps: Pick<DetailsDeps, "payoutHoldMs" | "now">, accountId: string, r: AccountDetailsRow | undefined): AccountDetailsView {
  if (!r) return { accountId, details: null, payoutAccountChangedAt: null, payoutsHeldUntil: null, updatedAt: null };
  const heldUntil = r.payoutAccountChangedAt + deps.payoutHoldMs;
  return { accountId, details: detailsOf(r), payoutAccountChangedAt: r.payoutAccountChangedAt, payoutsHeldUntil: heldUntil > deps.now() ? heldUntil : null, updatedAt: r.updatedAt };
}

export async function getAccountDetails(deps: DetailsDeps, accountId: string): Promise<AccountDetailsView> {
  if (!(await deps.store.account(accountId))) throw new DomainError("ACCOUNT_NOT_FOUND");
  return detailsView(deps, accountId, await deps.store.accountDetails(accountId));
}

export async function detailsOfAccounts(deps: DetailsDeps, accountIds: readonly string[]): Promise<AccountDetailsView[]> {
  return (await deps.store.detailsOfAccounts(accountIds)).map((r) => detailsView(deps, r.accountId, r));
}

/**
 * Enters or replaces the details, holding the account's row, with their audit entry in the same
 * transaction. The first payout account, and every change of it, holds payouts for
 * PAYOUT_ACCOUNT_HOLD from now: a session someone took over cannot send the balance to their own
 * account before the owners, mailed by the caller, have heard of it (docs/directory.md). The
 * same details again change nothing and record nothing.
 */
export async function setAccountDetails(
  deps: DetailsDeps,
  accountId: string,
  details: AccountDetails,
  by: Caller,
): Promise<AccountDetailsView & { payoutAccountChanged: boolean; previousPayoutAccount: PayoutAccount | null }> {
  const result = await deps.store.tx(async (t) => {
    if (!(await t.accountForUpdate(accountId))) throw new DomainError("ACCOUNT_NOT_FOUND");
    const current = await t.accountDetails(accountId);
    const before = current ? detailsOf(current) : null;
    if (before && JSON.stringify(before) === JSON.stringify(details)) return { row: current!, payoutAccountChanged: false, previous: before.payout };
    const at = deps.now();
    const payoutAccountChanged = !samePayoutAccount(before?.payout, details.payout);
    const row: AccountDetailsRow = {
      accountId,
      legalForm: details.legalForm,
      name: details.name,
      inn: details.inn,
      ogrn: details.ogrn,
      kpp: details.kpp,
      bik: details.payout.bik,
      bankName: details.payout.bankName,
      correspondentAccount: details.payout.correspondentAccount,
      settlementAccount: details.payout.account,
      recipientName: details.payout.recipientName,
      payoutAccountChangedAt: payoutAccountChanged || !current ? at : current.payoutAccountChangedAt,
      updatedAt: at,
    };
    await t.putAccountDetails(row);
    await t.insertAudit([
      entryOf(by, at, {
        accountId,
        shopId: null,
        action: "account.details_changed",
        target: { type: "account", id: accountId },
        before,
        after: { ...details, payoutAccountChanged, ...(payoutAccountChanged ? { payoutsHeldUntil: new Date(at + deps.payoutHoldMs).toISOString() } : {}) },
      }),
    ]);
    return { row, payoutAccountChanged, previous: before?.payout ?? null };
  });
  deps.log.info({ accountId, payoutAccountChanged: result.payoutAccountChanged }, "account details saved");
  return { ...detailsView(deps, accountId, result.row), payoutAccountChanged: result.payoutAccountChanged, previousPayoutAccount: result.previous };
}
