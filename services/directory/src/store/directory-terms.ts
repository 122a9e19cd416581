import { and, asc, desc, eq, gte, isNotNull, isNull, lt, lte, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { OnEither } from "@payaccept/platform/table";
import type { AuditQuery } from "./directory-store.ts";
import type * as tables from "./schema.ts";

/**
 * The terms both engines' directory statements share, on either schema's columns; each engine file
 * keeps only its own statements around them.
 */

type ApiKeys = OnEither<typeof tables.apiKeys>;
type Shops = OnEither<typeof tables.shops>;
type AuditEvents = OnEither<typeof tables.auditEvents>;

/** What a page shows of a shop's live key: never the key, only its prefix and age. */
export const liveKeyHintOf = <K extends ApiKeys>(k: K) => ({ displayPrefix: k.displayPrefix as K["displayPrefix"], createdAt: k.createdAt as K["createdAt"] });

/**
 * The shop's live key: at most one, the newest (a roll revokes the one before, or gives it an
 * expiry). `shopId` may be the shops' column, for a join.
 */
export const liveKeyOf = (k: ApiKeys, shopId: string | SQLWrapper) => and(eq(k.shopId, shopId), isNull(k.revokedAt), isNull(k.expiresAt));

/** Keys of the shop in their overlap (all, or the one keyId names). */
export const retiringKeysOf = (k: ApiKeys, shopId: string, keyId?: string) =>
  and(eq(k.shopId, shopId), isNull(k.revokedAt), isNotNull(k.expiresAt), keyId === undefined ? undefined : eq(k.id, keyId));

/** Keys whose overlap ran out by `now` and that the sweep has not revoked yet. */
export const expiredKeysAt = (k: ApiKeys, now: number) => and(isNull(k.revokedAt), lte(k.expiresAt, now));

/** Shops whose retiring secret's overlap ran out by `now`. */
export const expiredSecretsAt = (s: Shops, now: number) => lte(s.retiringSecretExpiresAt, now);

/** A page of the audit log: the filters, entries older than the cursor (newest first). */
export function auditWhere(a: AuditEvents, q: AuditQuery): SQL | undefined {
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
export const auditOrder = (a: AuditEvents) => [desc(a.at), desc(a.id)];

/** Shops in the order every list shows them: oldest first. */
export const shopOrder = (s: Shops) => [asc(s.createdAt), asc(s.id)];

/** What a second putAccountDetails of one account replaces: every column but the key. */
export const REPLACE_DETAILS = {
  legalForm: sql`excluded.legal_form`,
  name: sql`excluded.name`,
  inn: sql`excluded.inn`,
  ogrn: sql`excluded.ogrn`,
  kpp: sql`excluded.kpp`,
  bik: sql`excluded.bik`,
  bankName: sql`excluded.bank_name`,
  correspondentAccount: sql`excluded.correspondent_account`,
  settlementAccount: sql`excluded.settlement_account`,
  recipientName: sql`excluded.recipient_name`,
  payoutAccountChangedAt: sql`excluded.payout_account_changed_at`,
  updatedAt: sql`excluded.updated_at`,
};
