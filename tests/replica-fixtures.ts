/** Shared by tests/replicas.test.ts and tests/rolling-restart.test.ts: several replicas behind a modelled load balancer. */

/** Limits high enough that the tests' bounded load never meets them: rate limiting is not what they test. */
export const UNLIMITED_RATES = {
  RATE_LIMIT_PER_METHOD: "1000000",
  RATE_LIMIT_BALANCE: "1000000",
  RATE_LIMIT_PER_IP: "1000000",
};

/**
 * The load balancer in front of the gateway replicas: round robin over the ones in rotation. A
 * rolling restart takes a replica out (remove) before it is stopped and puts it back (add) once
 * it is ready again, as an orchestrator does with its readiness checks. Removal drains, as a
 * balancer's deregistration delay does: it resolves once the requests already sent to that
 * replica have settled, so none of them is still connecting when the replica stops listening.
 */
export class Rotation {
  private readonly members: string[];
  private readonly inFlight = new Map<string, Set<Promise<unknown>>>();
  private turn = 0;

  constructor(origins: string[]) {
    this.members = [...origins];
  }

  add(origin: string): void {
    if (!this.members.includes(origin)) this.members.push(origin);
  }

  async remove(origin: string): Promise<void> {
    const at = this.members.indexOf(origin);
    if (at >= 0) this.members.splice(at, 1);
    await Promise.allSettled([...(this.inFlight.get(origin) ?? [])]);
  }

  /** The origin (scheme, host, port) of the replica that takes the next request. */
  next(): string {
    if (this.members.length === 0) throw new Error("no gateway in rotation");
    return this.members[this.turn++ % this.members.length]!;
  }

  /** fetch through the balancer: the request's path and query go to the next replica in rotation. */
  readonly fetch = ((input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const origin = this.next();
    const target = new URL(origin);
    url.protocol = target.protocol;
    url.host = target.host;
    const pending = fetch(url, init);
    const requests = this.inFlight.get(origin) ?? new Set();
    this.inFlight.set(origin, requests);
    requests.add(pending);
    void pending.finally(() => requests.delete(pending)).catch(() => undefined);
    return pending;
  }) as typeof fetch;
}

/** "Outcome unknown" of a call: it may be repeated when repeating it is harmless (cancel, start, a sandbox outcome). */
export async function repeatWhileUnknown<T>(what: () => Promise<T>, isUnknown: (e: unknown) => boolean, attempts = 6): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await what();
    } catch (e) {
      if (attempt >= attempts || !isUnknown(e)) throw e;
      await Bun.sleep(200 * attempt);
    }
  }
}

/** A webhook's identity: the payment and the status it reports. */
export const pairKey = (id: string, status: string) => `${id}:${status}`;

/** Webhooks received per (payment id, status), with the moment the first one arrived. */
export function receivedPairs(requests: { body: string; at: number }[]): Map<string, { count: number; firstAt: number }> {
  const pairs = new Map<string, { count: number; firstAt: number }>();
  for (const r of requests) {
    const body = JSON.parse(r.body) as { id: string; status: string };
    const seen = pairs.get(pairKey(body.id, body.status));
    if (seen) seen.count++;
    else pairs.set(pairKey(body.id, body.status), { count: 1, firstAt: r.at });
  }
  return pairs;
}
