import { join } from "node:path";
import { openStore } from "@payaccept/platform";
import type { PaymentsStore } from "./payments-repo.ts";
import { schema } from "./schema.ts";

const MIGRATIONS = join(import.meta.dir, "../../drizzle");

/** payments.db at `path`, migrated to the committed schema. */
export const openPaymentsStore = (path: string): PaymentsStore => openStore(path, schema, MIGRATIONS);
