import { expect, test } from "bun:test";
import { parseConfig } from "@payaccept/platform";
import { importNeedsUrl, paymentsEnv } from "./config.ts";

test("PAYMENTS_IMPORT_FROM without PAYMENTS_DATABASE_URL is refused at start, naming both", () => {
  expect(() => parseConfig(paymentsEnv, { PAYMENTS_IMPORT_FROM: "/data/payments.db" }, importNeedsUrl)).toThrow(
    "PAYMENTS_IMPORT_FROM: only for a move to PostgreSQL (set PAYMENTS_DATABASE_URL)",
  );
  const cfg = parseConfig(paymentsEnv, { PAYMENTS_IMPORT_FROM: "/data/payments.db", PAYMENTS_DATABASE_URL: "postgres://u:p@db:5432/pay?schema=payments" }, importNeedsUrl);
  expect(cfg.PAYMENTS_IMPORT_FROM).toBe("/data/payments.db");
});
