import { z } from "zod";
import { DEV_CASH_REGISTER_API_KEY } from "@payaccept/contracts";
import { commonEnv, duration, port } from "@payaccept/platform";

/** Every variable the emulator reads; docs/cash-register-emulator.md has the table. */
export const cashRegisterEnv = {
  ...commonEnv,
  CASH_REGISTER_PORT: port(3008),
  CASH_REGISTER_API_KEY: z.string().min(1).default(DEV_CASH_REGISTER_API_KEY),
  /** How long a new document waits before it is fiscalised (the sandbox switch can change it at run time). */
  CASH_REGISTER_DELAY: duration("300ms"),
};
export type CashRegisterConfig = z.output<z.ZodObject<typeof cashRegisterEnv>>;
