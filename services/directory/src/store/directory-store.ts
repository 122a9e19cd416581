import { and, asc, count, eq, isNull } from "drizzle-orm";
import type { KeyHint } from "@payaccept/contracts";
import type { Store } from "@payaccept/platform";
import { accounts, apiKeys, schema, shops, type ApiKeyRow, type ShopRow } from "./schema.ts";

export type ShopWithKey = { shop: ShopRow; key: KeyHint | null };

export type DirectoryDb = Store<typeof schema>;

/** The directory's queries; every write that spans rows runs in one transaction. */
export class DirectoryStore {
  constructor(private readonly store: DirectoryDb) {}

  /**
   * BEGIN IMMEDIATE: the write lock is taken before the first read, so a read-modify-write by one
   * replica cannot interleave with another's on the shared file.
   */
  transaction<T>(fn: () => T): T {
    return this.store.sqlite.transaction(fn).immediate();
  }

  account(accountId: string): { id: string; createdAt: number } | undefined {
    return this.store.db.select().from(accounts).where(eq(accounts.id, accountId)).get();
  }

  insertAccount(id: string, createdAt: number): void {
    this.store.db.insert(accounts).values({ id, createdAt }).run();
  }

  insertShop(row: ShopRow): void {
    this.store.db.insert(shops).values(row).run();
  }

  shop(shopId: string): ShopRow | undefined {
    return this.store.db.select().from(shops).where(eq(shops.id, shopId)).get();
  }

  saveShop(row: ShopRow): void {
    const { id, ...rest } = row;
    this.store.db.update(shops).set(rest).where(eq(shops.id, id)).run();
  }

  allShops(): ShopRow[] {
    return this.store.db.select().from(shops).all();
  }

  insertApiKey(row: ApiKeyRow): void {
    this.store.db.insert(apiKeys).values(row).run();
  }

  /** Revokes every live key of the shop and returns them (their KV entries must go). */
  revokeKeys(shopId: string, at: number): ApiKeyRow[] {
    return this.store.db
      .update(apiKeys)
      .set({ revokedAt: at })
      .where(and(eq(apiKeys.shopId, shopId), isNull(apiKeys.revokedAt)))
      .returning()
      .all();
  }

  key(keyHash: string): ApiKeyRow | undefined {
    return this.store.db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash)).get();
  }

  /** The account's shops, oldest first, each with its live key's hint (one query). */
  shopsOfAccount(accountId: string): ShopWithKey[] {
    return this.store.db
      .select({ shop: shops, key: { displayPrefix: apiKeys.displayPrefix, createdAt: apiKeys.createdAt } })
      .from(shops)
      .leftJoin(apiKeys, and(eq(apiKeys.shopId, shops.id), isNull(apiKeys.revokedAt)))
      .where(eq(shops.accountId, accountId))
      .orderBy(asc(shops.createdAt), asc(shops.id))
      .all();
  }

  liveKeyHint(shopId: string): KeyHint | null {
    return (
      this.store.db
        .select({ displayPrefix: apiKeys.displayPrefix, createdAt: apiKeys.createdAt })
        .from(apiKeys)
        .where(and(eq(apiKeys.shopId, shopId), isNull(apiKeys.revokedAt)))
        .get() ?? null
    );
  }

  /** Every shop for operators, oldest first, one page at a time. */
  shopsPage(offset: number, limit: number): { items: ShopRow[]; total: number } {
    const items = this.store.db.select().from(shops).orderBy(asc(shops.createdAt), asc(shops.id)).limit(limit).offset(offset).all();
    const total = this.store.db.select({ n: count() }).from(shops).get()?.n ?? 0;
    return { items, total };
  }

  liveKeys(): ApiKeyRow[] {
    return this.store.db.select().from(apiKeys).where(isNull(apiKeys.revokedAt)).all();
  }
}
