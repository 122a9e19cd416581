import { z } from "zod";
import { FakeTBank } from "./fake-tbank.ts";

/**
 * The fake T-Bank as its own process, for `DEV_TBANK=fake npm run dev` (docs/connectors.md,
 * "Running the stack against the fake T-Bank"): the launcher starts it and points payments at it.
 */
const env = z
  .object({
    FAKE_TBANK_PORT: z.coerce.number().int().min(1).max(65535).default(3010),
    FAKE_TBANK_TERMINAL_KEY: z.string().min(1).max(20).default("PayacceptDEMO"),
    FAKE_TBANK_PASSWORD: z.string().min(1).default("fake-tbank-password"),
    FAKE_TBANK_PUBLIC_URL: z.url().optional(),
    FAKE_TBANK_NOTIFICATION_URL: z.url().optional(),
  })
  .parse(process.env);

const bank = new FakeTBank({
  terminals: { [env.FAKE_TBANK_TERMINAL_KEY]: env.FAKE_TBANK_PASSWORD },
  port: env.FAKE_TBANK_PORT,
  publicUrl: env.FAKE_TBANK_PUBLIC_URL,
  notificationUrl: env.FAKE_TBANK_NOTIFICATION_URL,
});
console.log(JSON.stringify({ msg: "fake T-Bank listening", api: bank.apiUrl, terminalKey: env.FAKE_TBANK_TERMINAL_KEY }));
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void bank.stop().then(() => process.exit(0)));
