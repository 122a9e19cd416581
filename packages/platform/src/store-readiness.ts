import type { Logger } from "./log.ts";

/** A probe slower than this counts as the store being down: a balancer should stop sending here. */
export const STORE_PROBE_TIMEOUT_MS = 1000;
/**
 * A probe's answer is reused this long (and a probe in flight is shared), so however many
 * balancers and health checkers ask /readyz, the database sees at most one `select 1` a second.
 */
export const STORE_PROBE_CACHE_MS = 1000;

/** A failed readiness check whose message is safe to show on /readyz: what is down, never a URL or password. */
export class NotReady extends Error {}

/**
 * A store's readiness: `select 1` bounded by STORE_PROBE_TIMEOUT_MS, cached STORE_PROBE_CACHE_MS.
 * `what` names the store as an operator knows it (its variable or file), `selectOne` asks it.
 * A change between up and down is logged once, with the driver's message (which /readyz leaves out).
 */
class StoreProbe {
  private last: { at: number; answer: Promise<void> } | undefined;
  private down = false;

  constructor(
    readonly what: string,
    private readonly selectOne: () => unknown,
    private readonly log?: Logger,
  ) {}

  check(): Promise<void> {
    const now = performance.now();
    if (this.last && now - this.last.at < STORE_PROBE_CACHE_MS) return this.last.answer;
    const answer = this.probe();
    this.last = { at: now, answer };
    return answer;
  }

  private async probe(): Promise<void> {
    let timer: Timer | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NotReady(`${this.what}: no answer to select 1 within ${STORE_PROBE_TIMEOUT_MS} ms`)), STORE_PROBE_TIMEOUT_MS);
    });
    try {
      await Promise.race([Promise.resolve().then(this.selectOne), timeout]);
      if (this.down) this.log?.info({ store: this.what }, "store answers again");
      this.down = false;
    } catch (e) {
      const failure = e instanceof NotReady ? e : new NotReady(`${this.what}: ${errorCode(e)}`);
      if (!this.down) this.log?.warn({ store: this.what, err: e }, "store does not answer; /readyz reports not ready");
      this.down = true;
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The driver's code for a failure (Bun.SQL's code and SQLSTATE, bun:sqlite's code), never its message: it may carry the URL. */
function errorCode(e: unknown): string {
  const { code, errno } = (e ?? {}) as { code?: unknown; errno?: unknown };
  const parts = [code, typeof errno === "string" ? errno : undefined].filter((p): p is string => typeof p === "string" && p !== "");
  return parts.length > 0 ? parts.join(" ") : "select 1 failed";
}

const stores = new Set<StoreProbe>();

/**
 * Makes the store part of this process's /readyz (every service's, through healthRoutes): the
 * store openers call it, so no service wires its own check. Returns the unregistering, for close.
 */
export function registerStoreProbe(what: string, selectOne: () => unknown, log?: Logger): () => void {
  const probe = new StoreProbe(what, selectOne, log);
  stores.add(probe);
  return () => void stores.delete(probe);
}

/** The `database` check of /readyz, when this process has opened a store. */
export function storeReadiness(): (() => Promise<boolean>) | undefined {
  if (stores.size === 0) return undefined;
  return async () => {
    const failures = (await Promise.allSettled([...stores].map((s) => s.check()))).flatMap((r) => (r.status === "rejected" ? [r.reason as NotReady] : []));
    if (failures.length > 0) throw new NotReady(failures.map((f) => f.message).join("; "));
    return true;
  };
}
