import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, SERVICES, SERVICE_NAMES } from "../infra/launcher/services.ts";
import { DashboardClient } from "./dashboard-client.ts";
import { eventually, freePort } from "./harness/stack.ts";

type Launch = { proc: ReturnType<typeof Bun.spawn>; output: () => string; ports: Record<string, number> };

const dataDir = mkdtempSync(join(tmpdir(), "payaccept-launcher-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function launch(extraEnv: Record<string, string> = {}): Promise<Launch> {
  const ports: Record<string, number> = { NATS_PORT: await freePort() };
  for (const name of SERVICE_NAMES) ports[SERVICES[name].portEnv] = await freePort();
  const env: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dataDir, LOG_LEVEL: "warn" };
  delete env.NATS_URL;
  for (const [k, v] of Object.entries(ports)) env[k] = String(v);
  Object.assign(env, extraEnv);
  const proc = Bun.spawn(["bun", "infra/launcher/main.ts"], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
  let text = "";
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const dec = new TextDecoder();
    for await (const chunk of stream) text += dec.decode(chunk);
  };
  void pump(proc.stdout as ReadableStream<Uint8Array>);
  void pump(proc.stderr as ReadableStream<Uint8Array>);
  return { proc, output: () => text, ports };
}

const health = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1000) });
  return (await res.json()) as { pid: number };
};

describe("stack launcher (bun run dev)", () => {
  test("starts everything, prints the demo shop, restarts a crashed service, stops cleanly", async () => {
    const run = await launch();
    await eventually(() => run.output().includes("Ctrl-C stops everything."), 90_000, 200);
    const out = run.output();
    const apiKey = /X-Api-Key\s+(\S+)/.exec(out)?.[1];
    const shopId = /shopId\s+(\S+)/.exec(out)?.[1];
    expect(apiKey).toBeTruthy();
    expect(/signing secret\s+\S+/.test(out)).toBe(true);
    expect(readFileSync(join(dataDir, "nats.url"), "utf8").trim()).toBe(`nats://127.0.0.1:${run.ports.NATS_PORT}`);

    // the demo merchant signs in to the dashboard and sees the demo shop
    const [, email, password] = /dashboard\s+(\S+) \/ (\S+)/.exec(out) ?? [];
    const dashboard = new DashboardClient(`http://127.0.0.1:${run.ports.DASHBOARD_PORT}`);
    const signedIn = await dashboard.signIn(email!, password!);
    expect(signedIn.status).toBe(303);
    expect((await dashboard.follow(signedIn)).html).toContain("Demo shop");

    // the demo key works against the real gateway
    const res = await fetch(`http://127.0.0.1:${run.ports.GATEWAY_PORT}/api/v1/payments`, { headers: { "X-Api-Key": apiKey! } });
    expect(res.status).toBe(200);

    // a crashed service comes back on its own and the others keep answering
    const paymentsPort = run.ports.PAYMENTS_PORT!;
    const before = await health(paymentsPort);
    process.kill(before.pid, "SIGKILL");
    const gatewayPid = (await health(run.ports.GATEWAY_PORT!)).pid;
    await eventually(async () => (await health(paymentsPort)).pid !== before.pid, 30_000, 200);
    expect((await health(run.ports.GATEWAY_PORT!)).pid).toBe(gatewayPid);

    // SIGTERM stops every process
    run.proc.kill("SIGTERM");
    expect(await run.proc.exited).toBe(0);
    for (const name of SERVICE_NAMES) {
      const port = run.ports[SERVICES[name].portEnv]!;
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    }

    // the second run reuses the demo shop instead of creating another
    const again = await launch();
    await eventually(() => again.output().includes("Ctrl-C stops everything."), 90_000, 200);
    expect(/shopId\s+(\S+)/.exec(again.output())?.[1]).toBe(shopId);
    again.proc.kill("SIGTERM");
    expect(await again.proc.exited).toBe(0);
  });

  test("a missing nats-server gives a one-line instruction", async () => {
    const run = await launch({ NATS_SERVER_BIN: "/nonexistent/nats-server" });
    expect(await run.proc.exited).toBe(1);
    const lines = run.output().trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("apt-get install -y nats-server");
  });
});
