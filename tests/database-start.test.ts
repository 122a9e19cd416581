import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../infra/launcher/services.ts";
import { freePort } from "./harness/stack.ts";

/**
 * A service pointed at PostgreSQL by a bad URL or at a server that is not there stops at start
 * with one line naming the variable (never the password) and a non-zero exit, before it takes any
 * traffic. The check is the platform's; each converted service is started to show it is wired in.
 */
const SERVICES = [
  ["balance", "BALANCE"],
  ["webhook-dispatcher", "WEBHOOKS"],
] as const;

async function startService(service: string, env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), "db-start-"));
  try {
    const proc = Bun.spawn(["bun", join(ROOT, `services/${service}/src/main.ts`)], {
      env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir, NATS_URL: `nats://127.0.0.1:${await freePort()}`, ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    return { code, output: stdout + stderr };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test.each(SERVICES)("%s: a malformed %s_DATABASE_URL stops the service at once, naming the variable", async (service, prefix) => {
  const { code, output } = await startService(service, { [`${prefix}_DATABASE_URL`]: "mysql://app:hunter2@db/pay" });
  expect(code).toBe(78);
  expect(output).toContain(`${prefix}_DATABASE_URL: must be a postgres://`);
  expect(output).not.toContain("hunter2");
});

test.each(SERVICES)("%s: an unreachable PostgreSQL is retried with a warning naming %s_DATABASE_URL, then the service exits 69", async (service, prefix) => {
  const port = await freePort();
  const { code, output } = await startService(service, { [`${prefix}_DATABASE_URL`]: `postgres://app:hunter2@127.0.0.1:${port}/pay`, DATABASE_CONNECT_TIMEOUT: "1500ms" });
  expect(code).toBe(69);
  expect(output).toContain(`${prefix}_DATABASE_URL: PostgreSQL at 127.0.0.1:${port} is unreachable`);
  expect(output).toContain("retrying");
  expect(output).not.toContain("hunter2");
});
