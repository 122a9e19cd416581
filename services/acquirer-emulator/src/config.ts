import { z } from "zod";
import { DEV_ACQUIRER_API_KEY, DEV_ACQUIRER_CALLBACK_SECRET } from "@payaccept/contracts";
import { commonEnv, duration, port } from "@payaccept/platform";

/** Every variable the emulator reads; docs/acquirer-emulator.md has the table. */
export const acquirerEnv = {
  ...commonEnv,
  ACQUIRER_PORT: port(3003),
  /** What a buyer's browser opens: the base of QR payloads, deep links and card form actions. */
  ACQUIRER_PUBLIC_URL: z
    .url()
    .default("http://localhost:3003")
    .transform((u) => u.replace(/\/+$/, "")),
  ACQUIRER_API_KEY: z.string().min(1).default(DEV_ACQUIRER_API_KEY),
  ACQUIRER_CALLBACK_SECRET: z.string().min(1).default(DEV_ACQUIRER_CALLBACK_SECRET),
  /** First retry delay of a callback; it doubles per attempt up to the cap. */
  ACQUIRER_CALLBACK_RETRY_BASE: duration("1s"),
  ACQUIRER_CALLBACK_RETRY_CAP: duration("30s"),
  /** Attempts per callback before the emulator gives up (60 ≈ 30 minutes at the default delays). */
  ACQUIRER_CALLBACK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(60),
  ACQUIRER_CALLBACK_TIMEOUT: duration("5s"),
  /**
   * How long a card hold lasts before the acquirer voids it by itself. Longer than payments'
   * CAPTURE_TTL (7 days) by default, so payments' own deadline acts first and this one is the
   * bank's backstop (docs/acquirer-emulator.md, "Holds"); tests set it short.
   */
  ACQUIRER_HOLD_TTL: duration("30d"),
};
export type AcquirerConfig = z.output<z.ZodObject<typeof acquirerEnv>>;

