import { z } from "zod";
import { commonEnv, databaseEnv, duration, flag, port } from "@payaccept/platform";

/** Every variable the directory reads; docs/directory.md has the table. */
export const directoryEnv = {
  ...commonEnv,
  ...databaseEnv("DIRECTORY"),
  DIRECTORY_PORT: port(3009),
  /** Accept http and private/loopback webhook URLs for every shop (development and test stacks only). */
  WEBHOOK_ALLOW_PRIVATE: flag(false),
  /**
   * How long payouts wait after an account's payout account is entered or changed: the owners are
   * mailed at once, and a session someone took over cannot move the balance to its own account in
   * the meantime (docs/directory.md, "Legal and bank details").
   */
  PAYOUT_ACCOUNT_HOLD: duration("24h"),
  /**
   * SQLite files whose accounts, shops and keys are imported once into an empty directory store,
   * comma-separated, the first one importable wins: a dashboard.db from before the directory was
   * its own service, or the directory's own directory.db when it moves to PostgreSQL. Unset:
   * `dashboard.db` under DATA_DIR on SQLite; nothing on PostgreSQL (its hosts keep no files).
   */
  DIRECTORY_IMPORT_FROM: z
    .string()
    .min(1)
    .transform((v) => v.split(",").map((p) => p.trim()).filter(Boolean))
    .optional(),
};
export type DirectoryConfig = z.output<z.ZodObject<typeof directoryEnv>>;
