import { and, eq, inArray } from "drizzle-orm";
import type { OnEither } from "@payaccept/platform/table";
import type * as tables from "./schema.ts";

/** The terms both engines' user statements share, on either schema's columns. */

type Users = OnEither<typeof tables.users>;

/** The merchant user of an account (operators have no account). */
export const merchantOf = (u: Users, accountId: string) => and(eq(u.accountId, accountId), eq(u.role, "merchant"));

/** The merchant users of these accounts. */
export const merchantsOf = (u: Users, accountIds: string[]) => and(inArray(u.accountId, accountIds), eq(u.role, "merchant"));
