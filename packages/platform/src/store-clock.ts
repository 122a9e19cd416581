import type { Logger } from "./log.ts";
import { OffsetReport } from "./peer-clocks.ts";

/**
 * "Now" of a process whose rows are on a shared PostgreSQL: the server's clock, read every 30 s
 * and carried forward on this process's monotonic clock. Replicas on several hosts write and
 * compare times in the same store (a refund's or a receipt's lease, a payment's expiry, a
 * session's end, the day a hold is released, the createdAt a merchant lists by), so they must read
 * them on one clock: with each replica's own, a host a few seconds off took over leases early,
 * expired payments before the time they showed, released holds before HOLD_HOUR and gave payments
 * createdAt values out of order (docs/clocks.md, "Clocks across hosts"). A process on SQLite
 * has its replicas on its own host, so its clock is the host's (Date.now()).
 */
const SAMPLE_EVERY_MS = 30_000;
/** The server's time at a moment of this process's monotonic clock, known to ± halfRoundTrip. */
type Reading = { serverMs: number; monoMs: number; halfRoundTrip: number };

let reading: Reading | undefined;

/** The store's time now (whole epoch ms, as the stores keep times): the server's clock on PostgreSQL, this host's on SQLite. */
export function storeNow(): number {
  return reading ? Math.floor(reading.serverMs + (performance.now() - reading.monoMs)) : Date.now();
}

/**
 * Makes storeNow() follow the server's clock (openPgStore calls it): asks `serverTime` (epoch ms)
 * at once and then every 30 s, keeping a new reading unless it is much less precise than the
 * current one (a slow round trip) and the current one is recent. The server's offset from this
 * host's wall clock is the metric clock_offset_seconds{peer: `label`}, with a warning past
 * `warnAboveMs`. Returns the stop, after which storeNow() is the host's clock again.
 */
export async function followServerClock(serverTime: () => Promise<number>, label: string, log?: Logger, warnAboveMs?: number): Promise<() => void> {
  const report = new OffsetReport(label, log, warnAboveMs);
  let mine: Reading | undefined;
  const sample = async () => {
    const sent = performance.now();
    const wallSent = Date.now();
    const serverMs = await serverTime();
    const received = performance.now();
    const next = { serverMs, monoMs: (sent + received) / 2, halfRoundTrip: (received - sent) / 2 };
    const current = reading && reading.halfRoundTrip + (next.monoMs - reading.monoMs) * 500e-6;
    if (current === undefined || next.halfRoundTrip <= 4 * current) reading = mine = next;
    const wallAtRead = wallSent + (received - sent) / 2;
    report.update(serverMs - wallAtRead - next.halfRoundTrip, serverMs - wallAtRead + next.halfRoundTrip);
  };
  await sample();
  const timer = setInterval(() => sample().catch((err) => log?.warn({ err, store: label }, "could not read the store's clock; keeping the last reading")), SAMPLE_EVERY_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    report.remove();
    // The store is closed: back to this host's clock (unless another store took over the reading).
    if (reading === mine) reading = undefined;
  };
}
