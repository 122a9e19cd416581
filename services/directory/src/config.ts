import { z } from "zod";
import { commonEnv, flag, port } from "@payaccept/platform";

/** Every variable the directory reads; docs/directory.md has the table. */
export const directoryEnv = {
  ...commonEnv,
  DIRECTORY_PORT: port(3009),
  /** Accept http and private/loopback webhook URLs for every shop (development and test stacks only). */
  WEBHOOK_ALLOW_PRIVATE: flag(false),
  /**
   * A dashboard.db from before the directory was its own service; its accounts, shops and keys
   * are imported once into an empty directory store. Unset: `dashboard.db` beside directory.db.
   */
  DIRECTORY_IMPORT_FROM: z.string().min(1).optional(),
};
export type DirectoryConfig = z.output<z.ZodObject<typeof directoryEnv>>;
