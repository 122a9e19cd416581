import { z } from "zod";
import { DEV_CASH_REGISTER_API_KEY } from "@payaccept/contracts";
import { commonEnv, duration, port } from "@payaccept/platform";

/** Every variable the receipts service reads; the README's Configuration table has them. */
export const receiptsEnv = {
  ...commonEnv,
  RECEIPTS_PORT: port(3007),
  /** The online cash register's API (the emulator under the launcher). */
  CASH_REGISTER_URL: z
    .url()
    .default("http://127.0.0.1:3008")
    .transform((u) => u.replace(/\/+$/, "")),
  CASH_REGISTER_API_KEY: z.string().min(1).default(DEV_CASH_REGISTER_API_KEY),
  CASH_REGISTER_TIMEOUT: duration("5s"),
  /** First retry delay of a receipt; it doubles per attempt up to the cap (with jitter). */
  RECEIPTS_RETRY_BASE: duration("1s"),
  RECEIPTS_RETRY_CAP: duration("5m"),
  /** Attempts (sends and state checks) before a receipt is FAILED (12 ≈ 20 minutes at the defaults). */
  RECEIPTS_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(12),
};
export type ReceiptsConfig = z.output<z.ZodObject<typeof receiptsEnv>>;
