import { and, eq, inArray } from "drizzle-orm";
import type * as pg from "./schema.pg.ts";
import type * as sqlite from "./schema.ts";

/** The terms both engines' user statements share, on either schema's columns. */

type Users = typeof sqlite.users | typeof pg.users;

/** The merchant user of an account (operators have no account). */
export const merchantOf = (u: Users, accountId: string) => and(eq(u.accountId, accountId), eq(u.role, "merchant"));

/** The merchant users of these accounts. */
export const merchantsOf = (u: Users, accountIds: string[]) => and(inArray(u.accountId, accountIds), eq(u.role, "merchant"));
