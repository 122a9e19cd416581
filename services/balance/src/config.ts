import { commonEnv, databaseEnv, port } from "@payaccept/platform";
import { z } from "zod";

export const balanceEnv = {
  ...commonEnv,
  ...databaseEnv("BALANCE"),
  BALANCE_PORT: port(3005),
  /** Moscow hour of day D+1 at which the receipts of day D become available. */
  HOLD_HOUR: z.coerce.number().int().min(0).max(23).default(12),
};
