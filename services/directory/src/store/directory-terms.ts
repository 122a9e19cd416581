import { and, asc, eq, isNull, type SQLWrapper } from "drizzle-orm";
import type { OnEither } from "@payaccept/platform/table";
import type * as tables from "./schema.ts";

/**
 * The terms both engines' directory statements share, on either schema's columns; each engine file
 * keeps only its own statements around them.
 */

type ApiKeys = OnEither<typeof tables.apiKeys>;
type Shops = OnEither<typeof tables.shops>;

/** What a page shows of a shop's live key: never the key, only its prefix and age. */
export const liveKeyHintOf = <K extends ApiKeys>(k: K) => ({ displayPrefix: k.displayPrefix as K["displayPrefix"], createdAt: k.createdAt as K["createdAt"] });

/** The shop's live key (at most one: a new key revokes the others). `shopId` may be the shops' column, for a join. */
export const liveKeyOf = (k: ApiKeys, shopId: string | SQLWrapper) => and(eq(k.shopId, shopId), isNull(k.revokedAt));

/** Shops in the order every list shows them: oldest first. */
export const shopOrder = (s: Shops) => [asc(s.createdAt), asc(s.id)];
