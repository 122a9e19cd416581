import { asc, count, eq, inArray, isNull, sql } from "drizzle-orm";
import { openStore, SerialSqlite } from "@payaccept/platform";
import type { DirectoryOps, DirectoryStore } from "./directory-store.ts";
import { auditOrder, auditWhere, expiredKeysAt, expiredSecretsAt, liveKeyHintOf, liveKeyOf, REPLACE_DETAILS, retiringKeysOf, shopOrder } from "./directory-terms.ts";
import { importLegacyDirectory } from "./legacy-import.ts";
import { accountDetails, accounts, apiKeys, auditEvents, schema, shops } from "./schema.sqlite.ts";

/** The directory on its SQLite file, every statement queued by SerialSqlite. */
export function openSqliteDirectoryStore(path: string, migrationsFolder: string): DirectoryStore {
  const { sqlite, db } = openStore(path, schema, migrationsFolder);
  const serial = new SerialSqlite(sqlite);
  const liveKeyHint = liveKeyHintOf(apiKeys);
  const shop = async (shopId: string) => db.select().from(shops).where(eq(shops.id, shopId)).get();

  const account = async (accountId: string) => db.select().from(accounts).where(eq(accounts.id, accountId)).get();
  const ops: DirectoryOps = {
    account,
    accountForUpdate: account,
    accountDetails: async (accountId) => db.select().from(accountDetails).where(eq(accountDetails.accountId, accountId)).get(),
    detailsOfAccounts: async (ids) => (ids.length === 0 ? [] : db.select().from(accountDetails).where(inArray(accountDetails.accountId, [...ids])).all()),
    putAccountDetails: async (row) => void db.insert(accountDetails).values(row).onConflictDoUpdate({ target: accountDetails.accountId, set: REPLACE_DETAILS }).run(),
    insertAccount: async (id, createdAt) => void db.insert(accounts).values({ id, createdAt }).run(),
    insertShop: async (row) => void db.insert(shops).values(row).run(),
    shop,
    shopForUpdate: shop,
    saveShop: async ({ id, ...rest }) => void db.update(shops).set(rest).where(eq(shops.id, id)).run(),
    allShops: async () => db.select().from(shops).all(),
    insertApiKey: async (row) => void db.insert(apiKeys).values(row).run(),
    retireLiveKey: async (shopId, at, until) =>
      db.update(apiKeys).set(until === null ? { revokedAt: at } : { expiresAt: until }).where(liveKeyOf(apiKeys, shopId)).returning().all(),
    endKeyOverlap: async (shopId, keyId, at) => db.update(apiKeys).set({ revokedAt: at }).where(retiringKeysOf(apiKeys, shopId, keyId)).returning().all(),
    expireKeys: async (now) => db.update(apiKeys).set({ revokedAt: sql`${apiKeys.expiresAt}` }).where(expiredKeysAt(apiKeys, now)).returning().all(),
    retiringKeys: async (shopId) => db.select().from(apiKeys).where(retiringKeysOf(apiKeys, shopId)).orderBy(asc(apiKeys.expiresAt)).all(),
    key: async (keyHash) => db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash)).get(),
    shopsWithExpiredSecret: async (now) => db.select().from(shops).where(expiredSecretsAt(shops, now)).all(),
    insertAudit: async (rows) => (rows.length === 0 ? 0 : db.insert(auditEvents).values(rows).onConflictDoNothing().returning({ id: auditEvents.id }).all().length),
    auditPage: async (q) => db.select().from(auditEvents).where(auditWhere(auditEvents, q)).orderBy(...auditOrder(auditEvents)).limit(q.limit).all(),
    shopsOfAccount: async (accountId) =>
      db
        .select({ shop: shops, key: liveKeyHint })
        .from(shops)
        .leftJoin(apiKeys, liveKeyOf(apiKeys, shops.id))
        .where(eq(shops.accountId, accountId))
        .orderBy(...shopOrder(shops))
        .all(),
    liveKeyHint: async (shopId) =>
      db.select(liveKeyHint).from(apiKeys).where(liveKeyOf(apiKeys, shopId)).get() ?? null,
    shopsPage: async (offset, limit) => ({
      items: db.select().from(shops).orderBy(...shopOrder(shops)).limit(limit).offset(offset).all(),
      total: db.select({ n: count() }).from(shops).get()?.n ?? 0,
    }),
    liveKeys: async () => db.select().from(apiKeys).where(isNull(apiKeys.revokedAt)).all(),
  };

  return {
    ...serial.outsideTx(ops),
    // The whole file is the lock: every unit runs one at a time, in every process.
    tx: (fn) => serial.tx(() => fn(ops)),
    importLegacy: (legacyPath) => serial.exclusive(() => importLegacyDirectory(sqlite, legacyPath)),
    close: async () => serial.exclusive(() => sqlite.close()),
  };
}
