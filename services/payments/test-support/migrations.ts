import { join } from "node:path";
import { migrationsBefore as before } from "../../../tests/harness/migrations.ts";

/** Payments' SQLite migrations up to, not including, the one named `tag` (tests/harness/migrations.ts). */
export const migrationsBefore = (tag: string): string => before(join(import.meta.dir, "../drizzle"), tag);
