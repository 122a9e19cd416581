/**
 * Calls `warn` when `promise` is still pending after `firstMs`, and again every `everyMs`, until it
 * settles: a wait that can last forever (the first NATS connection) must not be silent.
 */
export async function warnWhilePending<T>(promise: Promise<T>, opts: { firstMs: number; everyMs: number }, warn: (waitedMs: number) => void): Promise<T> {
  const started = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = (ms: number) => {
    timer = setTimeout(() => {
      warn(Date.now() - started);
      tick(opts.everyMs);
    }, ms);
  };
  tick(opts.firstMs);
  try {
    return await promise;
  } finally {
    clearTimeout(timer);
  }
}

/** A server list as it may be logged: user and password (or token) removed from every URL. */
export function withoutCredentials(servers: string): string {
  return servers
    .split(",")
    .map((s) => s.trim().replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^@/]*@/i, "$1"))
    .join(",");
}
