import { accountDetailsProblems } from "@payaccept/contracts";
import { readFileSync } from "node:fs";
import { commonEnv, ConfigError, databaseEnv, duration, port, unsetIfEmpty, type ConfigCheck } from "@payaccept/platform";
import { z } from "zod";
import type { OrderSettings, Payer } from "./payment-orders.ts";
import type { SberConnection } from "./rails/sber/sber-api.ts";

export const PAYOUT_RAILS = ["exchange-file", "sber"] as const;

const optional = unsetIfEmpty(z.string().trim().min(1));

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
  /**
   * How payouts reach the bank (docs/balance.md, "Payout rails"): exchange files the operator
   * uploads to the bank's internet bank, or Sber's API for payment orders (SBER_*).
   */
  PAYOUT_RAIL: z.enum(PAYOUT_RAILS).default("exchange-file"),
  /**
   * The platform's own account payouts are paid from: the payer of every payment order, and the
   * account whose statement the operator imports. Unset: payouts are made and wait PENDING, and
   * nothing can be sent.
   */
  PAYOUT_PAYER_NAME: optional,
  PAYOUT_PAYER_INN: optional,
  PAYOUT_PAYER_KPP: optional,
  PAYOUT_PAYER_ACCOUNT: optional,
  PAYOUT_PAYER_BIK: optional,
  PAYOUT_PAYER_CORR_ACCOUNT: optional,
  PAYOUT_PAYER_BANK: optional,
  /**
   * The purpose of every payout's payment order: {reference} (required: a statement line is
   * matched by it), {date}, {inn}, {recipient}; with the VAT words the Bank of Russia requires.
   */
  PAYOUT_PURPOSE: z.string().trim().min(1).max(210).default("Перечисление денежных средств, принятых в пользу клиента, выплата {reference} от {date}. Без налога (НДС)"),
  /** How often the scheduler looks for payout schedules that are due (every replica looks; each run is made once). */
  PAYOUT_SCHEDULE_TICK: duration("30s"),
  /** How often the payout events' outbox looks for events a crash or a failed publish left behind (each commit also wakes it). */
  PAYOUT_OUTBOX_SWEEP: duration("2s"),
  /** Sber's API (PAYOUT_RAIL=sber): where it is; fintech-test.sberbank.ru:9443 is the bank's test stand. */
  SBER_API_URL: z.url({ protocol: /^https?$/ }).default("https://fintech.sberbank.ru:9443"),
  /** The application's credentials, from the bank's registration of it. */
  SBER_CLIENT_ID: unsetIfEmpty(z.string().trim().min(1)),
  SBER_CLIENT_SECRET: unsetIfEmpty(z.string().min(1)),
  /**
   * The refresh token a signing person's SberBusiness ID sign-in gave (scope PAY_DOC_RU): it seeds
   * the kept token once; the bank rotates it at every refresh, balance keeps the current one. A
   * new value here replaces the kept one at the next start.
   */
  SBER_REFRESH_TOKEN: unsetIfEmpty(z.string().min(1)),
  /** The client certificate and key (PEM files) the bank issued for mutual TLS. */
  SBER_TLS_CERT: unsetIfEmpty(z.string().min(1)),
  SBER_TLS_KEY: unsetIfEmpty(z.string().min(1)),
  /** CA certificates (PEM file) to trust for the bank's server, e.g. the Russian Trusted Root CA; unset: the system's. */
  SBER_TLS_CA: unsetIfEmpty(z.string().min(1)),
  /** How often payouts are sent to Sber and the SENT ones' states asked for. */
  SBER_POLL_INTERVAL: duration("1m"),
  /** How long one call to Sber may take before it counts as unanswered (a create is then asked about before it is made again). */
  SBER_TIMEOUT: duration("15s"),
};
export type BalanceConfig = z.output<z.ZodObject<typeof balanceEnv>>;

const SBER = ["SBER_CLIENT_ID", "SBER_CLIENT_SECRET", "SBER_REFRESH_TOKEN", "SBER_TLS_CERT", "SBER_TLS_KEY"] as const;

const PAYER = ["PAYOUT_PAYER_NAME", "PAYOUT_PAYER_INN", "PAYOUT_PAYER_KPP", "PAYOUT_PAYER_ACCOUNT", "PAYOUT_PAYER_BIK", "PAYOUT_PAYER_CORR_ACCOUNT", "PAYOUT_PAYER_BANK"] as const;
/** The variable of each field a problem of the payer's details names (contracts' accountDetailsProblems). */
const PAYER_VARIABLE: Record<string, (typeof PAYER)[number]> = {
  inn: "PAYOUT_PAYER_INN",
  kpp: "PAYOUT_PAYER_KPP",
  "payout.bik": "PAYOUT_PAYER_BIK",
  "payout.correspondentAccount": "PAYOUT_PAYER_CORR_ACCOUNT",
  "payout.account": "PAYOUT_PAYER_ACCOUNT",
};

/** The payer as the variables give it; undefined when they are unset. */
function payerOf(c: BalanceConfig): Payer | undefined {
  if (c.PAYOUT_PAYER_ACCOUNT === undefined) return undefined;
  return {
    name: c.PAYOUT_PAYER_NAME!,
    inn: c.PAYOUT_PAYER_INN!,
    kpp: c.PAYOUT_PAYER_KPP!,
    account: c.PAYOUT_PAYER_ACCOUNT,
    bik: c.PAYOUT_PAYER_BIK!,
    bankName: c.PAYOUT_PAYER_BANK!,
    correspondentAccount: c.PAYOUT_PAYER_CORR_ACCOUNT!,
  };
}

/**
 * The payer's variables come all together or not at all, and pass the checks a merchant's own
 * details pass (contracts' accountDetailsProblems, as a company: the INN's check digits, the KPP,
 * a company's ruble settlement account, both accounts' control keys against the BIK): a typo
 * found at start, not in a bank's refusal of a whole file. The purpose must carry the reference and the VAT words. Sber's
 * rail needs its credentials and the payer.
 */
export const payoutSettingsOk: ConfigCheck<typeof balanceEnv> = (c) => {
  const problems: string[] = [];
  const set = PAYER.filter((k) => c[k] !== undefined);
  if (set.length > 0 && set.length < PAYER.length) problems.push(`${PAYER.filter((k) => c[k] === undefined).join(", ")}: set every PAYOUT_PAYER_* variable or none`);
  const payer = set.length === PAYER.length ? payerOf(c) : undefined;
  if (payer) {
    const { name, inn, kpp, bik, bankName, correspondentAccount, account } = payer;
    const details = { legalForm: "company" as const, name, inn, kpp, payout: { bik, bankName, correspondentAccount, account, recipientName: name } };
    for (const p of accountDetailsProblems(details)) problems.push(`${PAYER_VARIABLE[p.path] ?? p.path}: ${p.message}`);
  }
  if (c.PAYOUT_RAIL === "sber") {
    const missing = SBER.filter((k) => c[k] === undefined);
    if (missing.length > 0) problems.push(`${missing.join(", ")}: required with PAYOUT_RAIL=sber`);
    if (set.length < PAYER.length) problems.push("PAYOUT_PAYER_*: required with PAYOUT_RAIL=sber (the account the bank debits)");
  }
  if (!c.PAYOUT_PURPOSE.includes("{reference}")) problems.push("PAYOUT_PURPOSE: must contain {reference}, by which the bank's lines are matched to payouts");
  if (!c.PAYOUT_PURPOSE.includes("НДС")) problems.push("PAYOUT_PURPOSE: must state VAT (НДС), e.g. «Без налога (НДС)»");
  return problems;
};

/** The payer and the purpose, as the rails take them. */
export function orderSettingsOf(c: BalanceConfig): OrderSettings {
  return { payer: payerOf(c), purposeTemplate: c.PAYOUT_PURPOSE };
}

/** Sber's connection (PAYOUT_RAIL=sber, its variables checked present): the certificate files read once, here, at start. */
export function sberConnectionOf(c: BalanceConfig): SberConnection {
  const pem = (name: "SBER_TLS_CERT" | "SBER_TLS_KEY" | "SBER_TLS_CA", path: string) => {
    try {
      return readFileSync(path, "utf8");
    } catch (e) {
      throw new ConfigError(`invalid configuration: ${name}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).name})`);
    }
  };
  return {
    apiUrl: c.SBER_API_URL.replace(/\/+$/, ""),
    clientId: c.SBER_CLIENT_ID!,
    clientSecret: c.SBER_CLIENT_SECRET!,
    tls: { cert: pem("SBER_TLS_CERT", c.SBER_TLS_CERT!), key: pem("SBER_TLS_KEY", c.SBER_TLS_KEY!), ...(c.SBER_TLS_CA ? { ca: pem("SBER_TLS_CA", c.SBER_TLS_CA) } : {}) },
    timeoutMs: c.SBER_TIMEOUT,
  };
}
