import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { ROOT } from "../infra/launcher/services.ts";
import { freePort } from "./harness/stack.ts";

setDefaultTimeout(60_000);

const dataDir = mkdtempSync(join(tmpdir(), "payaccept-alone-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Lines of the process's stdout until `until` matches one or `limitMs` passes; then the process is ended. */
async function readUntil(proc: Bun.Subprocess<"ignore", "pipe", "pipe">, until: (line: string) => boolean, limitMs: number): Promise<string[]> {
  const lines: string[] = [];
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  const timer = setTimeout(() => proc.kill(), limitMs);
  let rest = "";
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      rest += decoder.decode(r.value, { stream: true });
      const parts = rest.split("\n");
      rest = parts.pop()!;
      lines.push(...parts);
      if (parts.some(until)) break;
    }
  } finally {
    clearTimeout(timer);
    proc.kill();
    await proc.exited;
  }
  return lines;
}

test("a service started from its own folder reads the repository's DATA_DIR and says within seconds which NATS it cannot reach", async () => {
  // Nothing listens on this port: the NATS the launcher would have written down is gone.
  const natsUrl = `nats://127.0.0.1:${await freePort()}`;
  writeFileSync(join(dataDir, "nats.url"), natsUrl);
  const proc = Bun.spawn(["bun", "run", "start"], {
    cwd: join(ROOT, "services/gateway"),
    // Relative, as in a .env: resolved against the repository root, not services/gateway.
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? "/tmp", DATA_DIR: relative(ROOT, dataDir), GATEWAY_PORT: String(await freePort()) },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const lines = await readUntil(proc, (l) => l.includes("NATS not reachable"), 20_000);
  const warning = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "NATS not reachable yet; still trying");
  expect(warning).toMatchObject({ level: 40, service: "gateway", natsUrl });
  expect(warning.waitedMs).toBeGreaterThanOrEqual(3_000);
});

test("a service whose start fails ends with one fatal log line naming the error, and exit code 1", async () => {
  // DATA_DIR is a file: the store cannot be made in it.
  const notADir = join(dataDir, "not-a-folder");
  writeFileSync(notADir, "");
  const proc = Bun.spawn(["bun", "run", "start"], {
    cwd: join(ROOT, "services/balance"),
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? "/tmp", DATA_DIR: notADir, BALANCE_PORT: String(await freePort()) },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  // It ends by itself; the timer only bounds a hang.
  const timer = setTimeout(() => proc.kill(), 20_000);
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  clearTimeout(timer);
  expect(code).toBe(1);
  const fatal = JSON.parse(out.trim().split("\n").at(-1)!);
  expect(fatal).toMatchObject({ level: 60, service: "balance", msg: "service ended by an error", err: { type: expect.any(String), message: expect.any(String) } });
});
