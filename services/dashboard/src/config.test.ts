import { expect, test } from "bun:test";
import { ConfigError, parseConfig } from "@payaccept/platform";
import { dashboardEnv } from "./config.ts";

const refusal = (env: Record<string, string>) => {
  try {
    parseConfig(dashboardEnv, env);
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  throw new Error("expected a refusal");
};

test("SMTP_URL: smtp:// or smtps:// with its credentials; empty (compose's ${SMTP_URL:-}) is unset; anything else is refused by name, never echoed", () => {
  expect(parseConfig(dashboardEnv, { SMTP_URL: "smtp://mailer:s3cret@mail.example.com:587?requireTLS=true" }).SMTP_URL).toBe("smtp://mailer:s3cret@mail.example.com:587?requireTLS=true");
  expect(parseConfig(dashboardEnv, { SMTP_URL: "smtps://mail.example.com" }).SMTP_URL).toBe("smtps://mail.example.com");
  expect(parseConfig(dashboardEnv, { SMTP_URL: "" }).SMTP_URL).toBeUndefined();
  const message = refusal({ SMTP_URL: "https://mailer:s3cret@mail.example.com" });
  expect(message).toContain("SMTP_URL: must be an smtp:// or smtps:// URL");
  expect(message).not.toContain("s3cret");
});

test("invitations last 72 hours and a proof of identity 10 minutes unless set", () => {
  const cfg = parseConfig(dashboardEnv, {});
  expect([cfg.DASHBOARD_INVITE_TTL, cfg.DASHBOARD_REAUTH_AFTER, cfg.SMTP_FROM]).toEqual([72 * 3_600_000, 600_000, "payaccept <no-reply@localhost>"]);
  expect(refusal({ DASHBOARD_REAUTH_AFTER: "soon" })).toContain("DASHBOARD_REAUTH_AFTER");
});

test("passwords are hashed at Bun's argon2id cost unless set, never below OWASP's floor", () => {
  const cfg = parseConfig(dashboardEnv, {});
  expect([cfg.DASHBOARD_PASSWORD_MEMORY_KIB, cfg.DASHBOARD_PASSWORD_PASSES]).toEqual([65_536, 2]);
  expect(parseConfig(dashboardEnv, { DASHBOARD_PASSWORD_MEMORY_KIB: "19456" }).DASHBOARD_PASSWORD_MEMORY_KIB).toBe(19_456);
  expect(refusal({ DASHBOARD_PASSWORD_MEMORY_KIB: "4096" })).toContain("DASHBOARD_PASSWORD_MEMORY_KIB");
  expect(refusal({ DASHBOARD_PASSWORD_PASSES: "1" })).toContain("DASHBOARD_PASSWORD_PASSES");
});
