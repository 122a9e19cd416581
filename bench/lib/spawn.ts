import { join } from "node:path";
import type { Subprocess } from "bun";
import { ROOT } from "../../infra/launcher/services.ts";

export type BenchServer = Subprocess<"ignore", "pipe", "inherit">;

/**
 * A bench server (bench/servers/<file>) as its own Bun process, from the repository root so the
 * workspace resolves (`root`: another checkout's, to compare two versions). Resolves with the
 * process and the first line it printed, which each bench server prints once it is ready
 * (`listening <port>`, `serving`).
 */
export async function startBenchServer(file: string, env: Record<string, string> = {}, timeoutMs = 10_000, root = ROOT): Promise<{ proc: BenchServer; line: string }> {
  const proc: BenchServer = Bun.spawn(["bun", join(root, "bench/servers", file)], {
    cwd: root,
    env: { ...(process.env as Record<string, string>), ...env },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = proc.stdout.getReader();
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  const { value } = await reader.read();
  clearTimeout(timer);
  reader.releaseLock();
  if (!value) throw new Error(`bench/servers/${file} exited before it was ready (code ${await proc.exited})`);
  return { proc, line: new TextDecoder().decode(value).trim() };
}

/** The port a server's `listening <port>` line names. */
export const listeningPort = (line: string) => Number(/^listening (\d+)/.exec(line)?.[1] ?? NaN);

export async function stopServers(procs: Subprocess[]): Promise<void> {
  for (const p of procs) p.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.exited));
}
