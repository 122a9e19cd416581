import type { AuditAction, KeyHint } from "@payaccept/contracts";
import type { Imported } from "@payaccept/platform";
import type { AccountDetailsRow, ApiKeyRow, AuditEventRow, ShopRow } from "./schema.ts";

/** The directory's store as its users see it, whichever engine holds it; open-directory-store.ts opens it. */

export type ShopWithKey = { shop: ShopRow; key: KeyHint | null };
export type AccountRow = { id: string; createdAt: number };

/** A page of the audit log: the filters in store terms (epoch ms), newest first, entries older than `before`. */
export type AuditQuery = {
  accountId?: string;
  shopId?: string;
  action?: AuditAction;
  /** An actor's label or id, exactly. */
  actor?: string;
  from?: number;
  to?: number;
  before?: { at: number; id: string };
  limit: number;
};

/**
 * The directory's statements, the same on SQLite and PostgreSQL (docs/conventions.md, "One
 * repository, two engines"). Inside tx() they go through the transaction's handle.
 */
export interface DirectoryOps {
  account(accountId: string): Promise<AccountRow | undefined>;
  /**
   * The account, its row held until the transaction ends: a change of its details starts here
   * (PostgreSQL: SELECT … FOR UPDATE; SQLite: the transaction holds the file's write lock).
   */
  accountForUpdate(accountId: string): Promise<AccountRow | undefined>;
  accountDetails(accountId: string): Promise<AccountDetailsRow | undefined>;
  /** The details of each account that has them (one query). */
  detailsOfAccounts(accountIds: readonly string[]): Promise<AccountDetailsRow[]>;
  /** Inserts the account's details, or replaces them whole. */
  putAccountDetails(row: AccountDetailsRow): Promise<void>;
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
  /**
   * The shop's live key (the one without an expiry) stops: at `at` when `until` is null, else it
   * keeps working until `until` (its overlap). Returns it (its KV entry must change).
   */
  retireLiveKey(shopId: string, at: number, until: number | null): Promise<ApiKeyRow[]>;
  /** The shop's keys in their overlap (one with keyId) stop at `at`; returns them. */
  endKeyOverlap(shopId: string, keyId: string | undefined, at: number): Promise<ApiKeyRow[]>;
  /** Keys whose overlap ran out by `now` are revoked as of their expiry; returns them. */
  expireKeys(now: number): Promise<ApiKeyRow[]>;
  /** The shop's keys in their overlap, soonest to expire first. */
  retiringKeys(shopId: string): Promise<ApiKeyRow[]>;
  key(keyHash: string): Promise<ApiKeyRow | undefined>;
  /** Shops whose retiring secret's overlap ran out by `now`, held like shopForUpdate. */
  shopsWithExpiredSecret(now: number): Promise<ShopRow[]>;
  /** Appends entries to the audit log; one already there (the same id) is left as it is. Returns how many were new. */
  insertAudit(rows: AuditEventRow[]): Promise<number>;
  auditPage(q: AuditQuery): Promise<AuditEventRow[]>;
  /** The account's shops, oldest first, each with its live key's hint (one query). */
  shopsOfAccount(accountId: string): Promise<ShopWithKey[]>;
  liveKeyHint(shopId: string): Promise<KeyHint | null>;
  /** Every shop for operators, oldest first, one page at a time. */
  shopsPage(offset: number, limit: number): Promise<{ items: ShopRow[]; total: number }>;
  /** Keys that work: the live ones and those in their overlap (the sweep revokes the expired ones). */
  liveKeys(): Promise<ApiKeyRow[]>;
}

export interface DirectoryStore extends DirectoryOps {
  /** One atomic unit; the body uses `t`, never the store. */
  tx<T>(fn: (t: DirectoryOps) => Promise<T>): Promise<T>;
  /** The one-time import from a dashboard.db of before the split (legacy-import.ts); at start only. */
  importLegacy(legacyPath: string): Promise<Imported>;
  close(): Promise<void>;
}
