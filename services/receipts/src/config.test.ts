import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readReceiptsConfig } from "./config.ts";

const dir = mkdtempSync(join(tmpdir(), "receipts-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const secretsFile = (content: unknown) => {
  const path = join(dir, `atol-${++files}.json`);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
};

const ACCOUNT = {
  ATOL_LOGIN: "login-1",
  ATOL_PASSWORD: "s3cret-pass",
  ATOL_GROUP_CODE: "group_1",
  ATOL_COMPANY_INN: "5544332219",
  ATOL_COMPANY_SNO: "usn_income, osn",
  ATOL_COMPANY_PAYMENT_ADDRESS: "https://shop.example",
  ATOL_COMPANY_EMAIL: "receipts@shop.example",
};

/** The ConfigError's text, or "" when the configuration is accepted. */
const problems = (env: Record<string, string>) => {
  try {
    readReceiptsConfig(env);
    return "";
  } catch (e) {
    return (e as Error).message;
  }
};

test("the emulator needs no АТОЛ account; АТОЛ needs the whole of it, each missing variable named", () => {
  expect(readReceiptsConfig({}).atol).toBeUndefined();
  const { ATOL_GROUP_CODE: _, ATOL_COMPANY_EMAIL: __, ...partial } = ACCOUNT;
  const text = problems({ RECEIPTS_REGISTER: "atol", ...partial });
  expect(text).toContain("ATOL_GROUP_CODE: required with RECEIPTS_REGISTER=atol");
  expect(text).toContain("ATOL_COMPANY_EMAIL: required with RECEIPTS_REGISTER=atol");
  expect(readReceiptsConfig({ RECEIPTS_REGISTER: "atol", ...ACCOUNT }).atol).toEqual({
    account: { ...ACCOUNT, ATOL_COMPANY_SNO: ["usn_income", "osn"] },
    shops: {},
  });
});

test("a wrong INN check digit, an unknown taxation system, a bad email or URL are refused by name, and no value is repeated back", () => {
  const text = problems({
    RECEIPTS_REGISTER: "atol",
    ...ACCOUNT,
    ATOL_PASSWORD: "s3cret-pass",
    ATOL_COMPANY_INN: "5544332218",
    ATOL_COMPANY_SNO: "usn_income,envd",
    ATOL_COMPANY_EMAIL: "no-at-sign",
    ATOL_CALLBACK_URL: "ftp://pay.example/cb",
  });
  for (const name of ["ATOL_COMPANY_INN", "ATOL_COMPANY_SNO", "ATOL_COMPANY_EMAIL", "ATOL_CALLBACK_URL"]) expect(text).toMatch(new RegExp(`${name}[.:]`));
  expect(text).not.toContain("5544332218");
  expect(text).not.toContain("s3cret-pass");
});

test("the secrets file: its values stand where a variable is unset, a variable wins over it, and its shops carry whole accounts of their own", () => {
  const { ATOL_PASSWORD: _, ATOL_LOGIN: __, ...rest } = ACCOUNT;
  const own = { ...ACCOUNT, ATOL_LOGIN: "own-login", ATOL_GROUP_CODE: "own_group", ATOL_COMPANY_INN: "7707329152", ATOL_COMPANY_SNO: "osn" };
  const path = secretsFile({ ATOL_PASSWORD: "from-file", ATOL_LOGIN: "file-login", shops: { "shop-7": own } });
  const cfg = readReceiptsConfig({ RECEIPTS_REGISTER: "atol", ATOL_SECRETS_FILE: path, ATOL_LOGIN: "env-login", ...rest });
  expect(cfg.atol?.account).toMatchObject({ ATOL_LOGIN: "env-login", ATOL_PASSWORD: "from-file" });
  expect(cfg.atol?.shops).toEqual({ "shop-7": { ...own, ATOL_COMPANY_SNO: ["osn"] } });
});

test("a secrets file that is not JSON, has an unknown key or a shop without its whole account is refused, naming the place in it", () => {
  expect(problems({ ATOL_SECRETS_FILE: secretsFile("{ not json") })).toContain("ATOL_SECRETS_FILE: cannot read");
  expect(problems({ ATOL_SECRETS_FILE: join(dir, "missing.json") })).toContain("ATOL_SECRETS_FILE: cannot read");
  expect(problems({ ATOL_SECRETS_FILE: secretsFile({ ATOL_PASWORD: "typo" }) })).toContain("ATOL_SECRETS_FILE: (top)");
  const { ATOL_COMPANY_INN: _, ...noInn } = ACCOUNT;
  const text = problems({ ATOL_SECRETS_FILE: secretsFile({ shops: { "shop-1": { ...noInn, ATOL_PASSWORD: "hidden-pass" } } }) });
  expect(text).toContain("ATOL_SECRETS_FILE: shops.shop-1.ATOL_COMPANY_INN");
  expect(text).not.toContain("hidden-pass");
});
