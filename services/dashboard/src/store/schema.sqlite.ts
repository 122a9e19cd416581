import { engineTables } from "@payaccept/platform/table";
import { tables } from "./schema.ts";

/** The dashboard's tables on SQLite (schema.ts defines them; drizzle-kit reads this file's exports). */
export const schema = engineTables(tables, "sqlite");
export const { teams, users, sessions, loginThrottle, flashMessages, invites, twoFactor, recoveryCodes, signInChallenges } = schema;
