import { and, eq, isNull } from "drizzle-orm";
import type { Store } from "@payaccept/platform";
import { accounts, apiKeys, schema, shops, type ApiKeyRow, type ShopRow } from "./schema.ts";

export type DirectoryDb = Store<typeof schema>;

/** The directory's queries; every write that spans rows runs in one transaction. */
export class DirectoryStore {
  constructor(private readonly store: DirectoryDb) {}

  transaction<T>(fn: () => T): T {
    return this.store.sqlite.transaction(fn)();
  }

  accountExists(accountId: string): boolean {
    return this.store.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).get() !== undefined;
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

  liveKeys(): ApiKeyRow[] {
    return this.store.db.select().from(apiKeys).where(isNull(apiKeys.revokedAt)).all();
  }
}
