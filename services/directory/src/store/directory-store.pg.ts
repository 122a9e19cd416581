import { asc, count, eq, inArray, isNull, sql } from "drizzle-orm";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import type { PgStore } from "@payaccept/platform";
import type { DirectoryOps, DirectoryStore } from "./directory-store.ts";
import { auditOrder, auditWhere, expiredKeysAt, expiredSecretsAt, liveKeyHintOf, liveKeyOf, REPLACE_DETAILS, retiringKeysOf, shopOrder } from "./directory-terms.ts";
import { importLegacyIntoPg } from "./legacy-import.ts";
import * as pg from "./schema.pg.ts";
import { accountDetails, accounts, apiKeys, auditEvents, shops } from "./schema.pg.ts";

type Db = BunSQLDatabase<typeof pg.schema>;
/** The pool's database or a transaction's: the statements are the same. */
type Runner = Pick<Db, "select" | "insert" | "update" | "delete">;

const first = async <R>(rows: Promise<R[]>) => (await rows)[0];
const liveKeyHint = liveKeyHintOf(apiKeys);

function pgOps(db: Runner): DirectoryOps {
  return {
    account: (accountId) => first(db.select().from(accounts).where(eq(accounts.id, accountId))),
    accountForUpdate: (accountId) => first(db.select().from(accounts).where(eq(accounts.id, accountId)).for("update")),
    accountDetails: (accountId) => first(db.select().from(accountDetails).where(eq(accountDetails.accountId, accountId))),
    detailsOfAccounts: async (ids) => (ids.length === 0 ? [] : db.select().from(accountDetails).where(inArray(accountDetails.accountId, [...ids]))),
    putAccountDetails: async (row) => void (await db.insert(accountDetails).values(row).onConflictDoUpdate({ target: accountDetails.accountId, set: REPLACE_DETAILS })),
    insertAccount: async (id, createdAt) => void (await db.insert(accounts).values({ id, createdAt })),
    insertShop: async (row) => void (await db.insert(shops).values(row)),
    shop: (shopId) => first(db.select().from(shops).where(eq(shops.id, shopId))),
    shopForUpdate: (shopId) => first(db.select().from(shops).where(eq(shops.id, shopId)).for("update")),
    saveShop: async ({ id, ...rest }) => void (await db.update(shops).set(rest).where(eq(shops.id, id))),
    allShops: () => db.select().from(shops),
    insertApiKey: async (row) => void (await db.insert(apiKeys).values(row)),
    // Each UPDATE re-checks its WHERE under the row's lock: of two replicas (or sweeps) changing one
    // key at once, the second finds it already changed and returns nothing.
    retireLiveKey: (shopId, at, until) => db.update(apiKeys).set(until === null ? { revokedAt: at } : { expiresAt: until }).where(liveKeyOf(apiKeys, shopId)).returning(),
    endKeyOverlap: (shopId, keyId, at) => db.update(apiKeys).set({ revokedAt: at }).where(retiringKeysOf(apiKeys, shopId, keyId)).returning(),
    expireKeys: (now) => db.update(apiKeys).set({ revokedAt: sql`${apiKeys.expiresAt}` }).where(expiredKeysAt(apiKeys, now)).returning(),
    retiringKeys: (shopId) => db.select().from(apiKeys).where(retiringKeysOf(apiKeys, shopId)).orderBy(asc(apiKeys.expiresAt)),
    key: (keyHash) => first(db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash))),
    // Held until the sweep's transaction ends; another replica's sweep skips them instead of waiting.
    shopsWithExpiredSecret: (now) => db.select().from(shops).where(expiredSecretsAt(shops, now)).for("update", { skipLocked: true }),
    insertAudit: async (rows) => (rows.length === 0 ? 0 : (await db.insert(auditEvents).values(rows).onConflictDoNothing().returning({ id: auditEvents.id })).length),
    auditPage: (q) => db.select().from(auditEvents).where(auditWhere(auditEvents, q)).orderBy(...auditOrder(auditEvents)).limit(q.limit),
    shopsOfAccount: (accountId) =>
      db
        .select({ shop: shops, key: liveKeyHint })
        .from(shops)
        .leftJoin(apiKeys, liveKeyOf(apiKeys, shops.id))
        .where(eq(shops.accountId, accountId))
        .orderBy(...shopOrder(shops)),
    liveKeyHint: async (shopId) => (await first(db.select(liveKeyHint).from(apiKeys).where(liveKeyOf(apiKeys, shopId)))) ?? null,
    shopsPage: async (offset, limit) => {
      const [items, total] = await Promise.all([
        db.select().from(shops).orderBy(...shopOrder(shops)).limit(limit).offset(offset),
        first(db.select({ n: count() }).from(shops)),
      ]);
      return { items, total: total?.n ?? 0 };
    },
    liveKeys: () => db.select().from(apiKeys).where(isNull(apiKeys.revokedAt)),
  };
}

/** The directory on PostgreSQL; a shop's read-modify-write locks its row (DirectoryOps.shopForUpdate). */
export function openPgDirectoryStore({ db, close }: PgStore<typeof pg.schema>): DirectoryStore {
  return { ...pgOps(db), tx: (fn) => db.transaction((tx) => fn(pgOps(tx))), importLegacy: (legacyPath) => importLegacyIntoPg(db, legacyPath), close };
}
