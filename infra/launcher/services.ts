import { accessSync, constants } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";

export const ROOT = resolve(import.meta.dir, "../..");

/** Every service of the stack: its folder, the variable naming its HTTP port, and that port's default. */
export const SERVICES = {
  directory: { dir: "services/directory", portEnv: "DIRECTORY_PORT", port: 3009 },
  dashboard: { dir: "services/dashboard", portEnv: "DASHBOARD_PORT", port: 3002 },
  payments: { dir: "services/payments", portEnv: "PAYMENTS_PORT", port: 3004 },
  balance: { dir: "services/balance", portEnv: "BALANCE_PORT", port: 3005 },
  "webhook-dispatcher": { dir: "services/webhook-dispatcher", portEnv: "WEBHOOKS_PORT", port: 3006 },
  "acquirer-emulator": { dir: "services/acquirer-emulator", portEnv: "ACQUIRER_PORT", port: 3003 },
  receipts: { dir: "services/receipts", portEnv: "RECEIPTS_PORT", port: 3007 },
  "cash-register-emulator": { dir: "services/cash-register-emulator", portEnv: "CASH_REGISTER_PORT", port: 3008 },
  gateway: { dir: "services/gateway", portEnv: "GATEWAY_PORT", port: 3000 },
  paypage: { dir: "services/paypage", portEnv: "PAYPAGE_PORT", port: 3001 },
} as const;
export type ServiceName = keyof typeof SERVICES;

/**
 * What the launcher and the tests read to start services. SERVICES_EXECUTABLE names the executable
 * that `bun run build:services` compiles (.build/payaccept): each service then starts as
 * `<executable> <service>`, the same code as `bun src/main.ts` compiled to bytecode.
 */
export const launcherEnv = {
  SERVICES_EXECUTABLE: z
    .string()
    .optional()
    .transform((v) => (v ? resolve(v) : undefined))
    .refine((path) => path === undefined || executable(path), "must name an executable file: build it with bun run build:services"),
};

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
export const SERVICE_NAMES = Object.keys(SERVICES) as ServiceName[];

/** The port a service listens on under the given environment. */
export function servicePort(name: ServiceName, env: Record<string, string | undefined>): number {
  const def = SERVICES[name];
  return Number(env[def.portEnv] ?? def.port);
}

/**
 * Cross-service URLs derived from the ports, unless set explicitly. The launcher and the test
 * harness both call this so that every service sees one consistent picture.
 */
export function stackUrls(env: Record<string, string | undefined>): Record<string, string> {
  const local = (name: ServiceName, host = "127.0.0.1") => `http://${host}:${servicePort(name, env)}`;
  return {
    PUBLIC_PAYPAGE_URL: env.PUBLIC_PAYPAGE_URL ?? local("paypage", "localhost"),
    PUBLIC_DASHBOARD_URL: env.PUBLIC_DASHBOARD_URL ?? local("dashboard", "localhost"),
    ACQUIRER_URL: env.ACQUIRER_URL ?? local("acquirer-emulator"),
    ACQUIRER_PUBLIC_URL: env.ACQUIRER_PUBLIC_URL ?? local("acquirer-emulator", "localhost"),
    PAYMENTS_CALLBACK_URL: env.PAYMENTS_CALLBACK_URL ?? `${local("payments")}/provider/callback`,
    TBANK_NOTIFICATION_URL: env.TBANK_NOTIFICATION_URL ?? `${local("payments")}/provider/tbank/notification`,
    CASH_REGISTER_URL: env.CASH_REGISTER_URL ?? local("cash-register-emulator"),
  };
}
