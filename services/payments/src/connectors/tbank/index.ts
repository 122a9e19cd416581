import { readFileSync } from "node:fs";
import { z } from "zod";
import { duration, unsetIfEmpty } from "@payaccept/platform";
import { defineConnector, type Connector } from "../connector.ts";
import { tbankClient, type TBankClientOptions } from "./client.ts";
import { tbankLookups } from "./lookups.ts";
import { tbankNotifications } from "./notifications.ts";
import { tbankPort } from "./port.ts";

export type TBankOptions = TBankClientOptions & {
  notificationUrl: string;
  now?: () => number;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
};

/** T-Bank's Internet Acquiring API v2 behind the provider port (docs/connectors.md, "T-Bank"). */
export function tbankConnector(opts: TBankOptions): Connector {
  const now = opts.now ?? Date.now;
  const client = tbankClient(opts);
  return {
    id: "tbank",
    port: tbankPort({ client, notificationUrl: opts.notificationUrl, now, log: opts.log }),
    // The buyer enters the card on the bank's own form (PaymentURL): card data never reaches us.
    cardPage: "hosted",
    notifications: tbankNotifications({ terminalKey: opts.terminalKey, password: opts.password, savedAccount: tbankLookups(client, now).savedAccount }),
  };
}

/** The terminal's password: the variable, or the first line of the secrets file it names. */
function passwordOf(cfg: { TBANK_PASSWORD?: string; TBANK_PASSWORD_FILE?: string }): string | undefined {
  if (cfg.TBANK_PASSWORD !== undefined) return cfg.TBANK_PASSWORD;
  if (cfg.TBANK_PASSWORD_FILE === undefined) return undefined;
  return readFileSync(cfg.TBANK_PASSWORD_FILE, "utf8").split("\n")[0]!.trim() || undefined;
}

const onLoopback = (url: string) => ["localhost", "127.0.0.1", "[::1]"].includes(new URL(url).hostname);

export const tbank = defineConnector({
  env: {
    /** The terminal (TerminalKey, up to 20 characters); unset: this deployment has no T-Bank connector. */
    TBANK_TERMINAL_KEY: unsetIfEmpty(z.string().min(1).max(20)),
    /** The terminal's password, which signs every request and notification; or TBANK_PASSWORD_FILE. */
    TBANK_PASSWORD: unsetIfEmpty(z.string().min(1)),
    TBANK_PASSWORD_FILE: unsetIfEmpty(z.string().min(1)),
    /** The bank's production API, or its test environment (https://rest-api-test.tinkoff.ru/v2), or a fake of it. */
    TBANK_API_URL: z
      .url()
      .default("https://securepay.tinkoff.ru/v2")
      .transform((u) => u.replace(/\/+$/, "")),
    /** Each call's timeout: below the callers' NATS_REQUEST_TIMEOUT_MS. */
    TBANK_TIMEOUT_MS: duration("2500"),
    /** Where the bank posts its notifications: payments' /provider/tbank/notification as the bank reaches it. */
    TBANK_NOTIFICATION_URL: z.url().default("http://127.0.0.1:3004/provider/tbank/notification"),
  },
  configured: (cfg) => cfg.TBANK_TERMINAL_KEY !== undefined,
  check(cfg) {
    if (cfg.TBANK_TERMINAL_KEY === undefined) return [];
    if (cfg.TBANK_PASSWORD !== undefined && cfg.TBANK_PASSWORD_FILE !== undefined) return ["TBANK_PASSWORD_FILE: give the password once, in TBANK_PASSWORD or in this file"];
    if (!onLoopback(cfg.TBANK_API_URL) && onLoopback(cfg.TBANK_NOTIFICATION_URL))
      return ["TBANK_NOTIFICATION_URL: the bank cannot reach a loopback address; give payments' /provider/tbank/notification as the bank reaches it"];
    try {
      if (passwordOf(cfg) === undefined) return ["TBANK_PASSWORD: required with TBANK_TERMINAL_KEY (or TBANK_PASSWORD_FILE naming a file that holds it)"];
    } catch (e) {
      return [`TBANK_PASSWORD_FILE: cannot be read (${(e as NodeJS.ErrnoException).code ?? "error"})`];
    }
    return [];
  },
  create: (cfg, { log }) =>
    tbankConnector({
      baseUrl: cfg.TBANK_API_URL,
      terminalKey: cfg.TBANK_TERMINAL_KEY!,
      password: passwordOf(cfg)!,
      timeoutMs: cfg.TBANK_TIMEOUT_MS,
      notificationUrl: cfg.TBANK_NOTIFICATION_URL,
      log,
    }),
});
