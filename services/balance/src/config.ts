import { commonEnv, databaseEnv, duration, port } from "@payaccept/platform";
import { z } from "zod";

export const balanceEnv = {
  ...commonEnv,
  ...databaseEnv("BALANCE"),
  BALANCE_PORT: port(3005),
  /** Moscow hour of day D+1 at which the receipts of day D become available. */
  HOLD_HOUR: z.coerce.number().int().min(0).max(23).default(12),
  /**
   * How long an event received but not acked waits before it is delivered again. Applying one takes
   * well under a millisecond, so an unacked event almost surely belongs to a process that died.
   */
  BALANCE_ACK_WAIT: duration("10s"),
};
