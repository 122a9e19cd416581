import { existsSync } from "node:fs";

/** libfaketime, from Debian's `faketime` package (infra/scripts/bootstrap.sh --test installs it). */
const LIBFAKETIME = [...new Bun.Glob("*/faketime/libfaketime.so.1").scanSync({ cwd: "/usr/lib", absolute: true })][0];

/**
 * The environment of a process whose wall clock is `offsetSeconds` off the host's (negative:
 * behind), as on a host whose NTP does not work: libfaketime preloaded, monotonic time left
 * alone, so the process's timers and timeouts keep real time. Everything it spawns inherits it.
 */
export function skewedClock(offsetSeconds: number): Record<string, string> {
  if (!LIBFAKETIME || !existsSync(LIBFAKETIME)) throw new Error("libfaketime is missing: run infra/scripts/bootstrap.sh --test (Debian package faketime)");
  return {
    LD_PRELOAD: LIBFAKETIME,
    FAKETIME: `${offsetSeconds >= 0 ? "+" : ""}${offsetSeconds}`,
    FAKETIME_DONT_FAKE_MONOTONIC: "1",
  };
}
