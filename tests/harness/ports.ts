import { closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Ports this process has handed out: never the same one twice. */
const handedOut = new Set<number>();

/**
 * Ports claimed by any test process on this machine, one file each. `npm test` runs files in
 * several processes at once, and a port free at the moment stays free until its service listens,
 * seconds later on a loaded machine: two processes could choose it meanwhile, and the loser's
 * readiness probe was then answered by the winner's service (a stack "ready" whose directory had
 * died with EADDRINUSE). A claim older than CLAIM_STALE_MS is from a process long gone.
 */
const CLAIMS = join(tmpdir(), "payaccept-port-claims");
const CLAIM_STALE_MS = 30 * 60_000;
mkdirSync(CLAIMS, { recursive: true });
process.on("exit", () => {
  for (const port of handedOut) rmSync(join(CLAIMS, String(port)), { force: true });
});

/** Takes the machine-wide claim of `port`; false when another process holds it. */
function claim(port: number): boolean {
  const file = join(CLAIMS, String(port));
  try {
    closeSync(openSync(file, "wx"));
    return true;
  } catch {
    try {
      if (Date.now() - statSync(file).mtimeMs < CLAIM_STALE_MS) return false;
      rmSync(file, { force: true });
      closeSync(openSync(file, "wx"));
      return true;
    } catch {
      return false;
    }
  }
}

/** The first port of the kernel's range for outgoing connections (Linux; 32768 elsewhere). */
const EPHEMERAL_RANGE_START = (() => {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
})();

/**
 * A loopback port free at the moment, for a service to listen on a little later. It is chosen
 * below the ephemeral range: a port from `listen(0)` lies in that range, where any process's
 * outgoing connection can take it before the service listens (CI saw a gateway fail to start
 * with EADDRINUSE that way); below it only listeners take ports.
 */
export async function freePort(): Promise<number> {
  const below = EPHEMERAL_RANGE_START;
  const lowest = 10_000;
  for (let attempt = 0; attempt < 1_000; attempt++) {
    const port = lowest + Math.floor(Math.random() * (below - lowest));
    if (handedOut.has(port) || !claim(port)) continue;
    try {
      Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
    } catch {
      rmSync(join(CLAIMS, String(port)), { force: true });
      continue; // someone listens there
    }
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free loopback port between ${lowest} and ${below}`);
}
