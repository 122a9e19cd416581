import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";

export class MissingNatsServer extends Error {
  constructor() {
    super(
      "nats-server not found: install it with `sudo apt-get install -y nats-server` (Debian/Ubuntu) or set NATS_URL to a running NATS with JetStream",
    );
  }
}

/** NATS_SERVER_BIN if set, else nats-server on PATH or in the sbin folders Debian installs it to. */
export function findNatsServer(explicit = process.env.NATS_SERVER_BIN): string {
  const bin = explicit
    ? Bun.which(explicit)
    : (Bun.which("nats-server") ?? Bun.which("nats-server", { PATH: "/usr/sbin:/usr/local/sbin:/sbin" }));
  if (!bin) throw new MissingNatsServer();
  return bin;
}

export async function waitForPort(port: number, timeoutMs: number, host = "127.0.0.1"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const sock = await Bun.connect({ hostname: host, port, socket: { data() {} } });
      sock.end();
      return;
    } catch {
      await Bun.sleep(50);
    }
  }
  throw new Error(`nothing listening on ${host}:${port} after ${timeoutMs} ms`);
}

export type NatsProcess = { url: string; port: number; proc: Subprocess; stop: () => Promise<void> };

/** Starts `nats-server -js` on loopback with its store under dataDir and writes the URL to dataDir/nats.url. */
export async function startNatsServer(opts: {
  port: number;
  dataDir: string;
  logFile?: string;
  extraArgs?: string[];
}): Promise<NatsProcess> {
  const bin = findNatsServer();
  const storeDir = join(opts.dataDir, "jetstream");
  mkdirSync(storeDir, { recursive: true });
  const args = [bin, "-js", "-a", "127.0.0.1", "-p", String(opts.port), "-sd", storeDir, ...(opts.extraArgs ?? [])];
  const out = opts.logFile ? Bun.file(opts.logFile) : "ignore";
  const proc = Bun.spawn(args, { stdout: out, stderr: out });
  await waitForPort(opts.port, 10000);
  const url = `nats://127.0.0.1:${opts.port}`;
  writeFileSync(join(opts.dataDir, "nats.url"), url + "\n");
  return {
    url,
    port: opts.port,
    proc,
    stop: async () => {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
