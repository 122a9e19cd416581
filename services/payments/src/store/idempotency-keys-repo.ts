import { IDEMPOTENCY_TTL_MS } from "@payaccept/contracts";
import { sql } from "drizzle-orm";
import { expiredKeys, keyUpsert, liveKey } from "./conditions.ts";
import type { Store } from "@payaccept/platform";
import type { IdempotencyKeyRow, IdempotencyKeysRepo } from "./payments-store.ts";
import { idempotencyKeys as k, type schema } from "./schema.sqlite.ts";

/** payments.db (payments-repo.ts's SqliteStore, named here without importing it: that module imports this one). */
type SqliteStore = Store<typeof schema>;

const ph = sql.placeholder;

/** The statements of payments.db's idempotency_keys, shared by the keyed insert (payments-repo.ts) and the repository below. */
export function keyStatements({ db }: SqliteStore) {
  const liveQ = db.select().from(k).where(liveKey(k, ph("shopId"), ph("key"), ph("cutoff"))).prepare();
  const putQ = db
    .insert(k)
    .values({ shopId: ph("shopId"), key: ph("key"), fingerprint: ph("fingerprint"), status: ph("status"), body: ph("body"), callId: ph("callId"), createdAt: ph("createdAt") })
    .onConflictDoUpdate(keyUpsert(k, ph("cutoff")))
    .returning()
    .prepare();
  return {
    /** The key's live row, read at `now`. */
    live: (shopId: string, key: string, now: number): IdempotencyKeyRow | undefined => liveQ.get({ shopId, key, cutoff: now - IDEMPOTENCY_TTL_MS }),
    /** Writes the row unless a live one is there (no row then comes back). */
    put: (row: IdempotencyKeyRow): IdempotencyKeyRow | undefined => putQ.get({ ...row, cutoff: row.createdAt - IDEMPOTENCY_TTL_MS }),
  };
}

export function createIdempotencyKeysRepo(store: SqliteStore): IdempotencyKeysRepo {
  const q = keyStatements(store);
  return {
    put: async (row) => store.db.transaction(() => (q.put(row) ? undefined : q.live(row.shopId, row.key, row.createdAt)), { behavior: "immediate" }),
    sweep: async (cutoff, limit) => store.db.delete(k).where(expiredKeys(k, cutoff, limit)).returning({ key: k.key }).all().length,
  };
}
