import { describe, expect, test } from "bun:test";
import { ConfigError, databaseOf, parseConfig } from "@payaccept/platform";
import { dispatcherEnv } from "./config.ts";

describe("dispatcher configuration", () => {
  test("defaults follow the spec: 5 s to answer, pauses 1m 5m 30m 2h 6h 24h (7 attempts), private addresses refused", () => {
    const cfg = parseConfig(dispatcherEnv, {});
    expect(cfg.WEBHOOK_TIMEOUT_MS).toBe(5000);
    expect(cfg.WEBHOOK_RETRY_DELAYS).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 86_400_000]);
    expect(cfg.WEBHOOK_ALLOW_PRIVATE).toBe(false);
    expect(cfg.WEBHOOKS_PORT).toBe(3006);
  });

  test("a schedule may be given in any duration units", () => {
    expect(parseConfig(dispatcherEnv, { WEBHOOK_RETRY_DELAYS: "300ms, 2s,1m" }).WEBHOOK_RETRY_DELAYS).toEqual([300, 2000, 60_000]);
  });

  test.each([
    ["WEBHOOK_RETRY_DELAYS", "1m,soon"],
    ["WEBHOOK_TIMEOUT_MS", "0"],
    ["WEBHOOK_MAX_ACK_PENDING", "0"],
    ["WEBHOOK_PER_SHOP_CONCURRENCY", "0"],
    ["WEBHOOKS_DATABASE_URL", "mysql://db/webhooks"],
  ])("%s=%s is refused", (name, value) => {
    expect(() => parseConfig(dispatcherEnv, { [name]: value })).toThrow(ConfigError);
  });

  test("the store is webhooks.db under DATA_DIR unless WEBHOOKS_DATABASE_URL names a PostgreSQL", () => {
    const choose = (env: Record<string, string>) => databaseOf(parseConfig(dispatcherEnv, { DATA_DIR: "/srv/data", ...env }), "WEBHOOKS", "webhooks.db");
    expect(choose({})).toEqual({ engine: "sqlite", path: "/srv/data/webhooks.db" });
    expect(choose({ WEBHOOKS_DATABASE_URL: "postgres://app@db:5432/pay?schema=webhooks", WEBHOOKS_DATABASE_POOL: "20" })).toMatchObject({
      engine: "postgres",
      variable: "WEBHOOKS_DATABASE_URL",
      schema: "webhooks",
      pool: 20,
    });
  });
});
