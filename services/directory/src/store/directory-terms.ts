import { and, asc, count, desc, eq, getTableColumns, gte, inArray, isNotNull, isNull, lt, lte, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { allFromExcluded, placeholders, type Db, type Dialect, type EitherTables, type Run, type Values } from "@payaccept/platform";
import type { OnEither } from "@payaccept/platform/table";
import type { AuditQuery, DirectoryOps } from "./directory-store.ts";
import type * as tables from "./schema.ts";
import type { AuditEventRow } from "./schema.ts";

/**
 * What both engines' directory statements share, on either schema's columns: the terms, and the
 * methods themselves (`directoryOps`), written once over `Db<E>` and run by the engine's `Run<E>`.
 */

type ApiKeys = OnEither<typeof tables.apiKeys>;
type Shops = OnEither<typeof tables.shops>;
type AuditEvents = OnEither<typeof tables.auditEvents>;

/** What a page shows of a shop's live key: never the key, only its prefix and age. */
const liveKeyHintOf = <K extends ApiKeys>(k: K) => ({ displayPrefix: k.displayPrefix as K["displayPrefix"], createdAt: k.createdAt as K["createdAt"] });

/**
 * The shop's live key: at most one, the newest (a roll revokes the one before, or gives it an
 * expiry). `shopId` may be the shops' column, for a join.
 */
const liveKeyOf = (k: ApiKeys, shopId: string | SQLWrapper) => and(eq(k.shopId, shopId), isNull(k.revokedAt), isNull(k.expiresAt));

/** Keys of the shop in their overlap (all, or the one keyId names). */
const retiringKeysOf = (k: ApiKeys, shopId: string, keyId?: string) =>
  and(eq(k.shopId, shopId), isNull(k.revokedAt), isNotNull(k.expiresAt), keyId === undefined ? undefined : eq(k.id, keyId));

/** Keys whose overlap ran out by `now` and that the sweep has not revoked yet. */
const expiredKeysAt = (k: ApiKeys, now: number) => and(isNull(k.revokedAt), lte(k.expiresAt, now));

/** Shops whose retiring secret's overlap ran out by `now`. */
const expiredSecretsAt = (s: Shops, now: number) => lte(s.retiringSecretExpiresAt, now);

/** A page of the audit log: the filters, entries older than the cursor (newest first). */
function auditWhere(a: AuditEvents, q: AuditQuery): SQL | undefined {
  return and(
    q.accountId === undefined ? undefined : eq(a.accountId, q.accountId),
    q.shopId === undefined ? undefined : eq(a.shopId, q.shopId),
    q.action === undefined ? undefined : eq(a.action, q.action),
    q.actor === undefined ? undefined : or(eq(a.actorLabel, q.actor), eq(a.actorId, q.actor)),
    q.from === undefined ? undefined : gte(a.at, q.from),
    q.to === undefined ? undefined : lte(a.at, q.to),
    q.before === undefined ? undefined : or(lt(a.at, q.before.at), and(eq(a.at, q.before.at), lt(a.id, q.before.id))),
  );
}
const auditOrder = (a: AuditEvents) => [desc(a.at), desc(a.id)];

/** Appends audit entries; one already there (the same id) is skipped and missing from RETURNING. */
export const insertAuditStatement = <E extends Dialect>(db: Db<E>, a: AuditEvents, rows: Values<AuditEvents> | Values<AuditEvents>[]) =>
  db.insert(a).values(rows).onConflictDoNothing().returning({ id: a.id });

/** One entry's INSERT with every column a placeholder, for the engine to prepare once. */
export const insertAuditEntryStatement = <E extends Dialect>(db: Db<E>, a: AuditEvents) =>
  insertAuditStatement(db, a, placeholders(...(Object.keys(getTableColumns(a)) as (keyof AuditEventRow & string)[])));

/**
 * The ops with one entry's INSERT (the audit intake's, entry by entry) run by a statement the
 * engine prepared once: building and preparing it per entry cost more than running it.
 */
export const withAuditEntryPrepared = (ops: DirectoryOps, insertOne: (row: AuditEventRow) => Promise<number>): DirectoryOps => ({
  ...ops,
  insertAudit: (rows) => (rows.length === 1 ? insertOne(rows[0]!) : ops.insertAudit(rows)),
});

/** Shops in the order every list shows them: oldest first. */
const shopOrder = (s: Shops) => [asc(s.createdAt), asc(s.id)];

/**
 * DirectoryOps on either engine: `db` is the store or the transaction's handle, `run` the engine's
 * way of running a statement; the reads that lock say so (Run.forUpdate).
 */
export function directoryOps<E extends Dialect>(db: Db<E>, run: Run<E>, t: EitherTables<typeof tables.tables>): DirectoryOps {
  const { accounts, accountDetails, shops, apiKeys, auditEvents } = t;
  const liveKeyHint = liveKeyHintOf(apiKeys);
  const shop = (shopId: string) => db.select().from(shops).where(eq(shops.id, shopId));
  const account = (accountId: string) => db.select().from(accounts).where(eq(accounts.id, accountId));
  return {
    account: (accountId) => run.one(account(accountId)),
    accountForUpdate: (accountId) => run.one(run.forUpdate(account(accountId))),
    accountDetails: (accountId) => run.one(db.select().from(accountDetails).where(eq(accountDetails.accountId, accountId))),
    detailsOfAccounts: async (ids) => (ids.length === 0 ? [] : run.all(db.select().from(accountDetails).where(inArray(accountDetails.accountId, [...ids])))),
    putAccountDetails: (row) => run.done(db.insert(accountDetails).values(row).onConflictDoUpdate({ target: accountDetails.accountId, set: allFromExcluded(accountDetails, "accountId") })),
    insertAccount: (id, createdAt) => run.done(db.insert(accounts).values({ id, createdAt })),
    insertShop: (row) => run.done(db.insert(shops).values(row)),
    shop: (shopId) => run.one(shop(shopId)),
    shopForUpdate: (shopId) => run.one(run.forUpdate(shop(shopId))),
    saveShop: ({ id, ...rest }) => run.done(db.update(shops).set(rest).where(eq(shops.id, id))),
    allShops: () => run.all(db.select().from(shops)),
    insertApiKey: (row) => run.done(db.insert(apiKeys).values(row)),
    // Each UPDATE re-checks its WHERE under the row's lock: of two replicas (or sweeps) changing one
    // key at once, the second finds it already changed and returns nothing.
    retireLiveKey: (shopId, at, until) => run.all(db.update(apiKeys).set(until === null ? { revokedAt: at } : { expiresAt: until }).where(liveKeyOf(apiKeys, shopId)).returning()),
    endKeyOverlap: (shopId, keyId, at) => run.all(db.update(apiKeys).set({ revokedAt: at }).where(retiringKeysOf(apiKeys, shopId, keyId)).returning()),
    expireKeys: (now) => run.all(db.update(apiKeys).set({ revokedAt: sql`${apiKeys.expiresAt}` }).where(expiredKeysAt(apiKeys, now)).returning()),
    retiringKeys: (shopId) => run.all(db.select().from(apiKeys).where(retiringKeysOf(apiKeys, shopId)).orderBy(asc(apiKeys.expiresAt))),
    key: (keyHash) => run.one(db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash))),
    // Held until the sweep's transaction ends; another replica's sweep skips them instead of waiting.
    shopsWithExpiredSecret: (now) => run.all(run.forUpdate(db.select().from(shops).where(expiredSecretsAt(shops, now)), { skipLocked: true })),
    insertAudit: async (rows) => (rows.length === 0 ? 0 : (await run.all(insertAuditStatement(db, auditEvents, rows))).length),
    auditPage: (q) => run.all(db.select().from(auditEvents).where(auditWhere(auditEvents, q)).orderBy(...auditOrder(auditEvents)).limit(q.limit)),
    shopsOfAccount: (accountId) =>
      run.all(
        db
          .select({ shop: shops, key: liveKeyHint })
          .from(shops)
          .leftJoin(apiKeys, liveKeyOf(apiKeys, shops.id))
          .where(eq(shops.accountId, accountId))
          .orderBy(...shopOrder(shops)),
      ),
    liveKeyHint: async (shopId) => (await run.one(db.select(liveKeyHint).from(apiKeys).where(liveKeyOf(apiKeys, shopId)))) ?? null,
    shopsPage: async (offset, limit) => {
      const [items, total] = await Promise.all([run.all(db.select().from(shops).orderBy(...shopOrder(shops)).limit(limit).offset(offset)), run.one(db.select({ n: count() }).from(shops))]);
      return { items, total: total?.n ?? 0 };
    },
    liveKeys: () => run.all(db.select().from(apiKeys).where(isNull(apiKeys.revokedAt))),
  };
}
