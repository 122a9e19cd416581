import { readFileSync } from "node:fs";
import { z } from "zod";
import { DEV_CASH_REGISTER_API_KEY, isValidInn, TaxationSystem } from "@payaccept/contracts";
import { commonEnv, ConfigError, databaseEnv, duration, parseConfig, port, unsetIfEmpty, type ConfigCheck } from "@payaccept/platform";

/**
 * One АТОЛ Онлайн account and the seller its registers are registered to (docs/receipts.md,
 * "Whose receipt it is"): the deployment's from these variables (or the secrets file's top), a
 * shop's own from the secrets file's `shops`. Never logged.
 */
export const atolAccountEnv = {
  ATOL_LOGIN: z.string().min(1).max(100),
  ATOL_PASSWORD: z.string().min(1).max(100),
  /** The group of registers (group_code) receipts are sent to. */
  ATOL_GROUP_CODE: z.string().regex(/^[\w.-]{1,100}$/, { message: "letters, digits, _ . - (АТОЛ's group_code)" }),
  /** Tag 1018: АТОЛ compares it with the INN of the register's fiscal drive. */
  ATOL_COMPANY_INN: z.string().refine(isValidInn, { message: "10 or 12 digits with valid check digits" }),
  /** The taxation systems the registers are registered for (tag 1055), comma-separated: a receipt under another is refused before it is sent. */
  ATOL_COMPANY_SNO: z
    .string()
    .transform((v) => v.split(",").map((s) => s.trim()))
    .pipe(z.array(TaxationSystem).min(1)),
  /** Tag 1187: for an internet sale, the site where the buyer pays. */
  ATOL_COMPANY_PAYMENT_ADDRESS: z.string().trim().min(1).max(256),
  /** Tag 1117: the seller's email the receipt is sent from. */
  ATOL_COMPANY_EMAIL: z.email().max(64),
};
export type AtolAccountConfig = z.output<z.ZodObject<typeof atolAccountEnv>>;

/** The same variables, each unset when empty. */
function optionalVariables<T extends Record<string, z.ZodType>>(shape: T) {
  return Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, unsetIfEmpty(v)])) as unknown as { [K in keyof T]: ReturnType<typeof unsetIfEmpty<T[K]>> };
}

/** Every variable the receipts service reads; the README's Configuration table has them. */
export const receiptsEnv = {
  ...commonEnv,
  ...databaseEnv("RECEIPTS"),
  /**
   * The receipts.db of a deployment moving to PostgreSQL: its receipts (history and those still
   * on their way) are copied once into the empty PostgreSQL store. Only with RECEIPTS_DATABASE_URL.
   */
  RECEIPTS_IMPORT_FROM: z.string().min(1).optional(),
  RECEIPTS_PORT: port(3007),
  /** The online cash register's API (the emulator under the launcher). */
  CASH_REGISTER_URL: z
    .url()
    .default("http://127.0.0.1:3008")
    .transform((u) => u.replace(/\/+$/, "")),
  CASH_REGISTER_API_KEY: z.string().min(1).default(DEV_CASH_REGISTER_API_KEY),
  /** One call to a register (the emulator or АТОЛ). */
  CASH_REGISTER_TIMEOUT: duration("5s"),
  /** First retry delay of a receipt; it doubles per attempt up to the cap (with jitter). */
  RECEIPTS_RETRY_BASE: duration("1s"),
  RECEIPTS_RETRY_CAP: duration("5m"),
  /** Attempts (sends and state checks) before a receipt is FAILED (12 ≈ 20 minutes at the defaults). */
  RECEIPTS_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(12),
  /** Where live receipts are registered; sandbox receipts always go to the emulator. */
  RECEIPTS_REGISTER: z.enum(["emulator", "atol"]).default("emulator"),
  /** АТОЛ's API: production, or https://testonline.atol.ru/possystem/v5 (its test environment). */
  ATOL_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .default("https://online.atol.ru/possystem/v5")
    .transform((u) => u.replace(/\/+$/, "")),
  /** A JSON file (a mounted secret) with the account variables and the shops' own accounts. */
  ATOL_SECRETS_FILE: unsetIfEmpty(z.string().min(1)),
  ...optionalVariables(atolAccountEnv),
  /** Where АТОЛ posts a document's result (this service's POST /atol/callback as the internet reaches it); unset: results by polling only. */
  ATOL_CALLBACK_URL: unsetIfEmpty(z.url({ protocol: /^https?$/ }).max(256)),
  /** With a callback URL: how long a document accepted by АТОЛ waits for its callback before the first poll of its report. */
  ATOL_CALLBACK_WAIT: duration("30s"),
  /** A token is renewed once it is this old: before the 24 hours АТОЛ gives it. */
  ATOL_TOKEN_RENEW_AFTER: duration("23h"),
};
export type ReceiptsConfig = z.output<z.ZodObject<typeof receiptsEnv>>;

/** An import names the file to move from, which only means something when moving to PostgreSQL. */
export const importNeedsPostgres: ConfigCheck<typeof receiptsEnv> = (cfg) =>
  cfg.RECEIPTS_IMPORT_FROM && !cfg.RECEIPTS_DATABASE_URL ? ["RECEIPTS_IMPORT_FROM: only for a move to PostgreSQL (set RECEIPTS_DATABASE_URL)"] : [];

/** АТОЛ as the register needs the deployment's account whole, from the variables or the secrets file. */
export const atolNeedsAccount: ConfigCheck<typeof receiptsEnv> = (cfg) =>
  cfg.RECEIPTS_REGISTER !== "atol"
    ? []
    : Object.keys(atolAccountEnv)
        .filter((k) => cfg[k as keyof typeof atolAccountEnv] === undefined)
        .map((k) => `${k}: required with RECEIPTS_REGISTER=atol (or in ATOL_SECRETS_FILE)`);

/**
 * ATOL_SECRETS_FILE: `{ "ATOL_LOGIN": …, … (any account variable), "shops": { "<shopId>": { every
 * account variable } } }`. Its top-level values stand where their variable is unset.
 */
const AtolSecretsFile = z
  .object({
    ...Object.fromEntries(Object.keys(atolAccountEnv).map((k) => [k, z.string().optional()])),
    shops: z.record(z.string().min(1), z.object(atolAccountEnv).strict()).default({}),
  })
  .strict();

export type ReceiptsSettings = ReceiptsConfig & {
  /** With RECEIPTS_REGISTER=atol: the deployment's account, and the shops registered through an account of their own (the secrets file's `shops`). */
  atol?: { account: AtolAccountConfig; shops: Record<string, AtolAccountConfig> };
};

/** The receipts service's configuration: the variables over the secrets file's values, checked; exits with one clear line otherwise. */
export function loadReceiptsConfig(env: Record<string, string | undefined> = process.env): ReceiptsSettings {
  try {
    return readReceiptsConfig(env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(e.message);
    process.exit(78);
  }
}

/** The same, throwing ConfigError: every problem named by its variable (or its place in the file), never by its value. */
export function readReceiptsConfig(env: Record<string, string | undefined>): ReceiptsSettings {
  const { shops, ...vars } = env.ATOL_SECRETS_FILE ? readSecretsFile(env.ATOL_SECRETS_FILE) : { shops: {} };
  const cfg = parseConfig(receiptsEnv, { ...vars, ...env }, (c) => [...importNeedsPostgres(c), ...atolNeedsAccount(c)]);
  if (cfg.RECEIPTS_REGISTER !== "atol") return cfg;
  // Whole: atolNeedsAccount refused the configuration otherwise.
  const account = Object.fromEntries(Object.keys(atolAccountEnv).map((k) => [k, cfg[k as keyof AtolAccountConfig]])) as AtolAccountConfig;
  return { ...cfg, atol: { account, shops } };
}

/** Parsed and checked; the problems name the file and the place in it, never a value. */
function readSecretsFile(path: string): z.output<typeof AtolSecretsFile> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ConfigError(`invalid configuration: ATOL_SECRETS_FILE: cannot read ${path} as JSON (${(e as Error).name})`);
  }
  const parsed = AtolSecretsFile.safeParse(json);
  if (!parsed.success) {
    throw new ConfigError(`invalid configuration: ${parsed.error.issues.map((i) => `ATOL_SECRETS_FILE: ${i.path.join(".") || "(top)"}: ${i.message}`).join("; ")}`);
  }
  // Its top-level values are checked with the variables they stand for (loadConfig).
  return parsed.data;
}
