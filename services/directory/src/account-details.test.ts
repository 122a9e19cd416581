import { describe, expect, test } from "bun:test";
import { AccountDetailsInput, DomainError, UNNAMED_CALLER } from "@payaccept/contracts";
import { createLogger } from "@payaccept/platform";
import { ENGINES, repositoriesPerFile } from "../../../tests/harness/engines.ts";
import { getAccountDetails, setAccountDetails } from "./account-details.ts";
import type { DirectoryDeps } from "./directory.ts";
import { openDirectoryStore } from "./store/open-directory-store.ts";
import type { DirectoryStore } from "./store/directory-store.ts";

const repos = repositoriesPerFile(openDirectoryStore, "directory.db");
const HOLD = 24 * 3600_000;
const details = AccountDetailsInput.parse({
  legalForm: "company",
  name: "ПАО Сбербанк",
  inn: "7707083893",
  ogrn: "1027700132195",
  kpp: "773601001",
  payout: { bik: "044525225", bankName: "ПАО Сбербанк", correspondentAccount: "30101810400000000225", account: "40702810938000000001", recipientName: "ПАО Сбербанк" },
});
const otherAccount = { ...details, payout: { ...details.payout, account: "40702810338000000002" } };

function depsOf(store: DirectoryStore, clock: { now: number }): DirectoryDeps {
  return { store, publisher: { syncShop: async () => {}, syncKey: async () => {} }, policy: { allowPrivate: true }, log: createLogger("test", "silent"), now: () => clock.now, payoutHoldMs: HOLD };
}
const by = { actor: UNNAMED_CALLER };

describe.each(ENGINES)("account details (%s)", (engine) => {
  test("the first payout account holds payouts from its entry; the same details again change nothing", async () => {
    const store = await repos.open(engine);
    const clock = { now: 1_000_000 };
    const deps = depsOf(store, clock);
    await store.insertAccount("acc-1", 1);
    expect(await getAccountDetails(deps, "acc-1")).toEqual({ accountId: "acc-1", details: null, payoutAccountChangedAt: null, payoutsHeldUntil: null, updatedAt: null });

    const first = await setAccountDetails(deps, "acc-1", details, by);
    expect(first).toMatchObject({ details, payoutAccountChanged: true, payoutAccountChangedAt: 1_000_000, payoutsHeldUntil: 1_000_000 + HOLD });
    clock.now += 60_000;
    const again = await setAccountDetails(deps, "acc-1", details, by);
    expect(again).toMatchObject({ payoutAccountChanged: false, payoutAccountChangedAt: 1_000_000, updatedAt: 1_000_000 });
    const entries = await store.auditPage({ accountId: "acc-1", limit: 10 });
    expect(entries.map((e) => [e.action, e.before, (e.after as { payoutAccountChanged: boolean }).payoutAccountChanged])).toEqual([["account.details_changed", null, true]]);

    // The hold ends by itself at its instant.
    clock.now = 1_000_000 + HOLD;
    expect((await getAccountDetails(deps, "acc-1")).payoutsHeldUntil).toBeNull();
  });

  test("a new name leaves the hold as it was; a new account restarts it and the log says before and after", async () => {
    const store = await repos.open(engine);
    const clock = { now: 5_000_000 };
    const deps = depsOf(store, clock);
    await store.insertAccount("acc-2", 1);
    await setAccountDetails(deps, "acc-2", details, by);
    clock.now += HOLD;
    const renamed = await setAccountDetails(deps, "acc-2", { ...details, name: "Публичное акционерное общество «Сбербанк России»" }, by);
    expect(renamed).toMatchObject({ payoutAccountChanged: false, payoutAccountChangedAt: 5_000_000, payoutsHeldUntil: null });
    clock.now += 1_000;
    const moved = await setAccountDetails(deps, "acc-2", otherAccount, by);
    expect(moved).toMatchObject({ payoutAccountChanged: true, payoutAccountChangedAt: clock.now, payoutsHeldUntil: clock.now + HOLD });
    const [latest] = await store.auditPage({ accountId: "acc-2", limit: 1 });
    expect((latest!.before as typeof details).payout.account).toBe("40702810938000000001");
    expect(latest!.after).toMatchObject({ payout: { account: "40702810338000000002" }, payoutAccountChanged: true, payoutsHeldUntil: new Date(clock.now + HOLD).toISOString() });
  });

  test("an unknown account is refused and nothing is written", async () => {
    const store = await repos.open(engine);
    const deps = depsOf(store, { now: 1 });
    const refused = await setAccountDetails(deps, "nobody", details, by).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).reason).toBe("ACCOUNT_NOT_FOUND");
    expect(await store.auditPage({ limit: 10 })).toEqual([]);
  });
});
