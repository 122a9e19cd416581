import type { KeyHint } from "@payaccept/contracts";
import type { Imported } from "@payaccept/platform";
import type { ApiKeyRow, ShopRow } from "./schema.ts";

/** The directory's store as its users see it, whichever engine holds it; open-directory-store.ts opens it. */

export type ShopWithKey = { shop: ShopRow; key: KeyHint | null };
export type AccountRow = { id: string; createdAt: number };

/**
 * The directory's statements, the same on SQLite and PostgreSQL (docs/conventions.md, "One
 * repository, two engines"). Inside tx() they go through the transaction's handle.
 */
export interface DirectoryOps {
  account(accountId: string): Promise<AccountRow | undefined>;
  insertAccount(id: string, createdAt: number): Promise<void>;
  insertShop(row: ShopRow): Promise<void>;
  shop(shopId: string): Promise<ShopRow | undefined>;
  /**
   * The shop, its row held until the transaction ends: a read-modify-write of a shop starts here,
   * so two replicas changing one shop run one after the other and neither loses the other's
   * fields. PostgreSQL: SELECT … FOR UPDATE of the shop row; SQLite: the transaction already holds
   * the file's write lock (BEGIN IMMEDIATE). Outside tx() it is a plain read.
   */
  shopForUpdate(shopId: string): Promise<ShopRow | undefined>;
  saveShop(row: ShopRow): Promise<void>;
  allShops(): Promise<ShopRow[]>;
  insertApiKey(row: ApiKeyRow): Promise<void>;
  /** Revokes every live key of the shop and returns them (their KV entries must go). */
  revokeKeys(shopId: string, at: number): Promise<ApiKeyRow[]>;
  key(keyHash: string): Promise<ApiKeyRow | undefined>;
  /** The account's shops, oldest first, each with its live key's hint (one query). */
  shopsOfAccount(accountId: string): Promise<ShopWithKey[]>;
  liveKeyHint(shopId: string): Promise<KeyHint | null>;
  /** Every shop for operators, oldest first, one page at a time. */
  shopsPage(offset: number, limit: number): Promise<{ items: ShopRow[]; total: number }>;
  liveKeys(): Promise<ApiKeyRow[]>;
}

export interface DirectoryStore extends DirectoryOps {
  /** One atomic unit; the body uses `t`, never the store. */
  tx<T>(fn: (t: DirectoryOps) => Promise<T>): Promise<T>;
  /** The one-time import from a dashboard.db of before the split (legacy-import.ts); at start only. */
  importLegacy(legacyPath: string): Promise<Imported>;
  close(): Promise<void>;
}
