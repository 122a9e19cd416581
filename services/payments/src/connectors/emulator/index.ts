import { z } from "zod";
import { DEV_ACQUIRER_API_KEY, DEV_ACQUIRER_CALLBACK_SECRET } from "@payaccept/contracts";
import { duration } from "@payaccept/platform";
import { acquirerHttp, type AcquirerHttpOptions } from "../../provider/acquirer-http.ts";
import { readProviderCallback } from "../../provider/callback.ts";
import { defineConnector, type Connector } from "../connector.ts";

const baseUrl = (dflt: string) =>
  z
    .url()
    .default(dflt)
    .transform((u) => u.replace(/\/+$/, ""));

/**
 * The acquirer emulator (services/acquirer-emulator), reached over docs/acquirer-protocol.md: the
 * default connector of `npm run dev` and the tests. Its callbacks are signed with an HMAC over the
 * timestamp and the raw body, and answered with JSON once committed.
 */
export function emulatorConnector(opts: AcquirerHttpOptions & { callbackSecret: string }): Connector {
  const json = (status: number, body: unknown) => Response.json(body, { status });
  return {
    id: "emulator",
    port: acquirerHttp(opts),
    cardPage: "fields",
    notifications: {
      path: "/provider/callback",
      read: async ({ headers, rawBody, nowMs }) => [
        readProviderCallback({
          secret: opts.callbackSecret,
          timestamp: headers.get("x-acquirer-timestamp") ?? undefined,
          signature: headers.get("x-acquirer-signature") ?? undefined,
          rawBody,
          nowMs,
        }),
      ],
      answer: ({ retry, summary }) => json(retry ? 503 : 200, summary),
      refusal: json,
    },
  };
}

export const emulator = defineConnector({
  env: {
    ACQUIRER_URL: baseUrl("http://127.0.0.1:3003"),
    PAYMENTS_CALLBACK_URL: z.url().default("http://127.0.0.1:3004/provider/callback"),
    ACQUIRER_API_KEY: z.string().min(1).default(DEV_ACQUIRER_API_KEY),
    ACQUIRER_CALLBACK_SECRET: z.string().min(1).default(DEV_ACQUIRER_CALLBACK_SECRET),
    /** Below the callers' NATS_REQUEST_TIMEOUT_MS, so a hung provider is a clean 503 to them, not a timeout. */
    ACQUIRER_TIMEOUT_MS: duration("2500"),
  },
  // Always there: its development defaults make the stack work out of the box.
  configured: () => true,
  create: (cfg) =>
    emulatorConnector({
      baseUrl: cfg.ACQUIRER_URL,
      apiKey: cfg.ACQUIRER_API_KEY,
      callbackUrl: cfg.PAYMENTS_CALLBACK_URL,
      callbackSecret: cfg.ACQUIRER_CALLBACK_SECRET,
      timeoutMs: cfg.ACQUIRER_TIMEOUT_MS,
    }),
});
