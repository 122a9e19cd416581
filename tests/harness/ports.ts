import { readFileSync } from "node:fs";

/** Ports this process has handed out: never the same one twice. */
const handedOut = new Set<number>();

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
    if (handedOut.has(port)) continue;
    try {
      Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
    } catch {
      continue; // someone listens there
    }
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free loopback port between ${lowest} and ${below}`);
}
