import { join } from "node:path";
import { openOnEngine, type DatabaseChoice, type Logger } from "@payaccept/platform";
import { openPgDirectoryStore } from "./directory-store.pg.ts";
import { openSqliteDirectoryStore } from "./directory-store.sqlite.ts";
import type { DirectoryStore } from "./directory-store.ts";
import { schema as pgSchema } from "./schema.pg.ts";

const MIGRATIONS = join(import.meta.dir, "../../drizzle");
const PG_MIGRATIONS = join(import.meta.dir, "../../drizzle-pg");

/** The directory's store on the engine the configuration chose (DIRECTORY_DATABASE_URL), migrated. */
export async function openDirectoryStore(choice: DatabaseChoice, log?: Logger): Promise<DirectoryStore> {
  return openOnEngine(choice, (path) => openSqliteDirectoryStore(path, MIGRATIONS), { schema: pgSchema, migrationsFolder: PG_MIGRATIONS, open: openPgDirectoryStore }, log);
}
