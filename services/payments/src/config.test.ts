import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConfig } from "@payaccept/platform";
import { paymentsChecks, paymentsEnv } from "./config.ts";

test("PAYMENTS_IMPORT_FROM without PAYMENTS_DATABASE_URL is refused at start, naming both", () => {
  expect(() => parseConfig(paymentsEnv, { PAYMENTS_IMPORT_FROM: "/data/payments.db" }, paymentsChecks)).toThrow(
    "PAYMENTS_IMPORT_FROM: only for a move to PostgreSQL (set PAYMENTS_DATABASE_URL)",
  );
  const cfg = parseConfig(paymentsEnv, { PAYMENTS_IMPORT_FROM: "/data/payments.db", PAYMENTS_DATABASE_URL: "postgres://u:p@db:5432/pay?schema=payments" }, paymentsChecks);
  expect(cfg.PAYMENTS_IMPORT_FROM).toBe("/data/payments.db");
});

test("a T-Bank terminal needs its password, from the variable or a secrets file, a notification URL the bank reaches, and may be the default connector only when configured", () => {
  const terminal = { TBANK_TERMINAL_KEY: "1234567890DEMO", TBANK_NOTIFICATION_URL: "https://pay.example.ru/provider/tbank/notification" };
  expect(() => parseConfig(paymentsEnv, { PAYMENTS_DEFAULT_CONNECTOR: "tbank" }, paymentsChecks)).toThrow("PAYMENTS_DEFAULT_CONNECTOR: tbank is not configured here");
  expect(() => parseConfig(paymentsEnv, terminal, paymentsChecks)).toThrow("TBANK_PASSWORD: required with TBANK_TERMINAL_KEY");
  expect(() => parseConfig(paymentsEnv, { ...terminal, TBANK_PASSWORD_FILE: "/nonexistent/tbank" }, paymentsChecks)).toThrow("TBANK_PASSWORD_FILE: cannot be read (ENOENT)");
  const file = join(mkdtempSync(join(tmpdir(), "tbank-secret-")), "password");
  writeFileSync(file, "s3cret\n");
  expect(() => parseConfig(paymentsEnv, { ...terminal, TBANK_PASSWORD: "x", TBANK_PASSWORD_FILE: file }, paymentsChecks)).toThrow("TBANK_PASSWORD_FILE: give the password once");
  // The bank's own API and payments on loopback: its notifications could never arrive.
  expect(() => parseConfig(paymentsEnv, { ...terminal, TBANK_PASSWORD: "x", TBANK_NOTIFICATION_URL: "http://127.0.0.1:3004/provider/tbank/notification" }, paymentsChecks)).toThrow(
    "TBANK_NOTIFICATION_URL: the bank cannot reach a loopback address",
  );
  const cfg = parseConfig(paymentsEnv, { ...terminal, TBANK_PASSWORD_FILE: file, PAYMENTS_DEFAULT_CONNECTOR: "tbank" }, paymentsChecks);
  expect([cfg.PAYMENTS_DEFAULT_CONNECTOR, cfg.TBANK_API_URL]).toEqual(["tbank", "https://securepay.tinkoff.ru/v2"]);
  // compose's empty values count as unset: no terminal, no connector.
  expect(parseConfig(paymentsEnv, { TBANK_TERMINAL_KEY: "", TBANK_PASSWORD: "", TBANK_PASSWORD_FILE: "" }, paymentsChecks).TBANK_TERMINAL_KEY).toBeUndefined();
  // A fake of the bank on this host may post to payments on this host.
  expect(parseConfig(paymentsEnv, { TBANK_TERMINAL_KEY: "Fake", TBANK_PASSWORD: "x", TBANK_API_URL: "http://127.0.0.1:3010/v2" }, paymentsChecks).TBANK_API_URL).toBe("http://127.0.0.1:3010/v2");
});
