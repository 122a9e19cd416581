import { join } from "node:path";
import { GroupCommit, openStore } from "@payaccept/platform";
import { createIdempotencyKeysRepo } from "./idempotency-keys-repo.ts";
import { createOutboxRepo } from "./outbox-repo.ts";
import { createPaymentsRepo, type SqliteStore } from "./payments-repo.ts";
import type { PaymentsRepo, PaymentsStore, RefundsRepo, SavedMethodsRepo, StoreHooks } from "./payments-store.ts";
import { createRefundsRepo } from "./refunds-repo.ts";
import { createSavedMethodsRepo } from "./saved-methods-repo.ts";
import { withTrace } from "./rows.ts";
import { schema } from "./schema.sqlite.ts";

const MIGRATIONS = join(import.meta.dir, "../../drizzle");

/** payments.db at `path`, migrated, for the SQLite repositories themselves (their tests, the benches' seeding). */
export const openPaymentsFile = (path: string): SqliteStore => openStore(path, schema, MIGRATIONS);

/** The same methods, answering through a promise: what callers of either engine await. */
function asAsync<M extends Record<string, (...args: never[]) => unknown>>(methods: M): { [K in keyof M]: (...args: Parameters<M[K]>) => Promise<ReturnType<M[K]>> } {
  return Object.fromEntries(Object.entries(methods).map(([name, fn]) => [name, async (...args: never[]) => fn(...args)])) as never;
}

/**
 * payments.db. bun:sqlite is synchronous and every method's transaction runs from BEGIN IMMEDIATE
 * to COMMIT without awaiting, so no other request's statements can land inside it and no queue
 * (SerialSqlite) is needed. Inserts and transitions of one event-loop turn are group-committed
 * (GroupCommit): one IMMEDIATE transaction, each write in its own savepoint, every caller answered
 * and every status change announced after the COMMIT.
 */
export function openSqlitePaymentsStore(path: string, hooks: StoreHooks): PaymentsStore {
  const store = openPaymentsFile(path);
  const group = new GroupCommit(store.sqlite, hooks.onCallbackError);
  const payments = createPaymentsRepo(store, (t) => group.afterCommit(() => hooks.onCommitted(t)));
  const refunds = createRefundsRepo(store, payments, hooks.onEnded);
  const { countRefund: _internal, insert, insertKeyed, transition, ...reads } = payments;
  const paymentsRepo: PaymentsRepo = {
    ...asAsync(reads),
    insert: (...args) => group.run(() => insert(...args)),
    insertKeyed: (...args) => group.run(() => insertKeyed(...args)),
    transition: (id, trigger, now, opts) => {
      const traced = withTrace(opts);
      return group.run(() => transition(id, trigger, now, traced));
    },
  };
  return {
    payments: paymentsRepo,
    keys: createIdempotencyKeysRepo(store),
    refunds: asAsync(refunds) satisfies RefundsRepo,
    methods: asAsync(createSavedMethodsRepo(store, (e) => hooks.onMethodEnded?.(e))) satisfies SavedMethodsRepo,
    outbox: createOutboxRepo(store),
    close: async () => store.sqlite.close(),
  };
}
