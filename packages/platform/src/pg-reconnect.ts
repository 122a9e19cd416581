import type { SQL } from "bun";
import type { Logger } from "./log.ts";

/**
 * What a server restart or a failover does to a pool (docs/replicas.md, "Pointing a service at
 * PostgreSQL"): the server ends every session with FATAL 57P01, Bun.SQL keeps that error on each
 * idle pooled connection and hands it to the next statement sent there, then drops the connection.
 * Without a retry, the first statement on each connection that was open fails, however long ago
 * the server came back.
 *
 * Retried, because the statement cannot have taken effect:
 * - a server error of class 57P (the server shut the session down: admin or crash shutdown,
 *   cannot connect now) or 08 (connection exception): the statement was refused or aborted, and
 *   an aborted statement or transaction never commits;
 * - in a transaction whose body has not returned (no COMMIT sent yet): also a connection that
 *   closed under it (Bun.SQL's ERR_POSTGRES_CONNECTION_CLOSED), since an open transaction is
 *   rolled back with its connection.
 * Never retried: anything after the body returned (the COMMIT may have been applied), and a
 * closed connection under a single statement outside a transaction (it may have committed).
 *
 * Each stale connection fails once and is dropped, and a statement may land on several of them in
 * turn, so a statement is tried up to pool size + 1 times; a server still down answers
 * "connection refused", which is not retried. With several hosts (PrimaryPool) a failure that
 * may mean the primary moved makes the pool look for it, and what cannot have taken effect is
 * sent to the new primary too: twice as many tries, a move adding its new pool's.
 */
const SERVER_ENDED_SESSION = /^(57P0[1-3]|08...)$/;
const CONNECTION_CLOSED = "ERR_POSTGRES_CONNECTION_CLOSED";
/** A write sent to a server that no longer takes writes (a standby, a demoted primary): refused, never applied. */
const READ_ONLY = "25006";
/** Failures after which the primary may have moved: the pool asks every listed host which takes writes. */
const MAY_HAVE_MOVED = new Set(["ERR_POSTGRES_CONNECTION_CLOSED", "ERR_POSTGRES_CONNECTION_REFUSED", "ERR_POSTGRES_CONNECTION_TIMEOUT"]);

type Failure = { code?: unknown; errno?: unknown; cause?: unknown };

/** The driver's error: drizzle wraps it (a statement in a transaction body) in `cause`. */
function driverError(e: unknown): Failure {
  let f = (e ?? {}) as Failure;
  for (let depth = 0; f.code === undefined && f.cause !== undefined && depth < 3; depth++) f = (f.cause ?? {}) as Failure;
  return f;
}

/** The SQLSTATE of a statement the server refused (`55P03`: a lock not had within lock_timeout), drizzle's wrapping followed. */
export function sqlStateOf(e: unknown): string | undefined {
  const { code, errno } = driverError(e);
  return code === "ERR_POSTGRES_SERVER_ERROR" && typeof errno === "string" ? errno : undefined;
}

/** The statement was refused or aborted because the server ended its session: it did not take effect. */
function serverEndedSession(e: unknown): boolean {
  return SERVER_ENDED_SESSION.test(sqlStateOf(e) ?? "");
}

/** Safe to run the transaction again: the failure came before its COMMIT was sent. */
function transactionLost(e: unknown): boolean {
  return serverEndedSession(e) || driverError(e).code === CONNECTION_CLOSED;
}

/** The failure says the server may no longer be the primary (refused a write, gone, ended the session). */
function mayHaveMoved(e: unknown): boolean {
  const state = sqlStateOf(e);
  return state === READ_ONLY || serverEndedSession(e) || MAY_HAVE_MOVED.has(String(driverError(e).code));
}

/**
 * The database could not be reached or could not take the statement: down, restarting, its
 * primary lost or moving. What callers see as a missing dependency (503), never as a bug.
 */
export function databaseUnavailable(e: unknown): boolean {
  return mayHaveMoved(e) || driverError(e).code === "ERR_POSTGRES_NO_PRIMARY";
}

/** Never reached the server, or refused there before doing anything: safe to send again on another server. */
function neverApplied(e: unknown): boolean {
  return sqlStateOf(e) === READ_ONLY || serverEndedSession(e) || driverError(e).code === "ERR_POSTGRES_CONNECTION_REFUSED";
}

/**
 * Where statements go: a pool on one server, or (a URL listing several hosts) the pool on the one
 * that takes writes, moved when the primary moves.
 */
export type PoolSource = SQL | PrimaryPool;

async function withRetries<T>(attempt: () => Promise<T>, retryable: (e: unknown) => boolean, tries: number, log?: Logger, follow?: (e: unknown) => Promise<boolean>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      // Moved to the new primary: what failed on the old one and cannot have taken effect is sent there.
      const moved = follow !== undefined && mayHaveMoved(e) && (await follow(e));
      if (n >= tries || !(retryable(e) || (moved && neverApplied(e)))) throw e;
      const { code, errno } = driverError(e);
      log?.warn(
        { code, errno, attempt: n },
        moved ? "PostgreSQL primary moved; statement sent again to the new primary" : "PostgreSQL connection was ended by the server; statement sent again on another connection",
      );
    }
  }
}

/** A query as drizzle uses it: awaited for rows, or `.values()` for rows as arrays. */
type Rows = PromiseLike<unknown> & { values(): Promise<unknown> };

/**
 * The pool as drizzle sees it (`drizzle-orm/bun-sql` calls only `unsafe` and `begin` on it):
 * every statement outside a transaction and every transaction goes through here, so the retry
 * is in one place for every store. Statements inside a transaction use the transaction's own
 * connection and are retried with their transaction.
 */
export function reconnectingClient(source: PoolSource, pool: number, log?: Logger): SQL {
  const primary = source instanceof PrimaryPool ? source : undefined;
  const client = () => primary?.current ?? (source as SQL);
  const follow = primary && ((e: unknown) => primary.follow(e));
  // A move to a new primary adds one more round of stale connections to get through.
  const tries = primary ? 2 * pool + 2 : pool + 1;
  const statement = <T>(send: () => PromiseLike<T>) => withRetries(async () => await send(), serverEndedSession, tries, log, follow);
  const facade = {
    unsafe: (query: string, params?: unknown[]): Rows => ({
      then: (onRows, onError) => statement(() => client().unsafe(query, params)).then(onRows, onError),
      values: () => statement(() => client().unsafe(query, params).values()),
    }),
    begin: <T>(body: (tx: SQL) => Promise<T>) => {
      let committing = false;
      return withRetries(
        () =>
          client().begin(async (tx) => {
            committing = false;
            const value = await body(tx);
            committing = true;
            return value;
          }),
        (e) => !committing && transactionLost(e),
        tries,
        log,
        follow && ((e) => (committing ? follow(e).then(() => false) : follow(e))),
      );
    },
  };
  // drizzle's session is typed for the whole SQL class but uses only the members above.
  return facade as unknown as SQL;
}

/** How long a search for the primary that found none is taken as the answer, so a failing burst probes the hosts a few times a second, not once per statement. */
const SEARCH_REUSE_MS = 250;
/** Bound on one host's answer to the probe: a host that hangs is passed over. */
const PROBE_TIMEOUT_MS = 2000;

/**
 * The pool on the primary of a set of servers (a URL listing several hosts, with libpq's
 * `target_session_attrs=read-write`; docs/operations-database.md, "Failover"): after a failure
 * that says the primary may have moved (a write refused as read-only, 25006; the connection
 * refused, closed or ended by the server), `follow` asks every host at once whether it takes
 * writes (`pg_is_in_recovery()` false and `transaction_read_only` off, libpq's read-write test)
 * and, when another one does, opens a pool there and closes the old one. Bun.SQL takes one host
 * per pool, hence this. Searches are shared: a burst of failures makes one, and a search that
 * found nothing is the answer for SEARCH_REUSE_MS.
 */
export class PrimaryPool {
  current: SQL;
  private at: number;
  private search: { done: number; moved: Promise<boolean> } | undefined;

  constructor(
    private readonly urls: string[],
    private readonly open: (url: string) => SQL,
    private readonly probeOpen: (url: string) => SQL,
    private readonly log?: Logger,
  ) {
    this.at = 0;
    this.current = open(urls[0]!);
  }

  /** The index of the host that takes writes now, or undefined: each host asked at once, the first writable answer taken. */
  async writable(): Promise<number | undefined> {
    const ask = async (i: number): Promise<number> => {
      const probe = this.probeOpen(this.urls[i]!);
      let timer: Timer | undefined;
      try {
        const rows = await Promise.race([
          probe`select not pg_is_in_recovery() and current_setting('transaction_read_only') = 'off' as writable`,
          new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("no answer")), PROBE_TIMEOUT_MS))),
        ]);
        if (!(rows as { writable: boolean }[])[0]?.writable) throw new Error("read-only");
        return i;
      } finally {
        clearTimeout(timer);
        void probe.close({ timeout: 0 }).catch(() => {});
      }
    };
    return Promise.any(this.urls.map((_, i) => ask(i))).catch(() => undefined);
  }

  /** Moves the pool to the host that takes writes, if that is another one; resolves whether it moved. */
  follow(e?: unknown): Promise<boolean> {
    const now = performance.now();
    if (this.search && (this.search.done === 0 || now - this.search.done < SEARCH_REUSE_MS)) return this.search.moved;
    const search = { done: 0, moved: Promise.resolve(false) };
    search.moved = this.writable().then((i) => {
      search.done = performance.now();
      if (i === undefined || i === this.at) return false;
      const old = this.current;
      this.current = this.open(this.urls[i]!);
      this.log?.warn({ from: hostOf(this.urls[this.at]!), to: hostOf(this.urls[i]!), code: driverError(e).code, errno: driverError(e).errno }, "PostgreSQL primary moved; following it");
      this.at = i;
      void old.close({ timeout: 0 }).catch(() => {});
      return true;
    });
    this.search = search;
    return search.moved;
  }

  /** At start: the pool on the host that takes writes now; throws when none does. */
  async locate(): Promise<void> {
    const i = await this.writable();
    if (i === undefined) throw Object.assign(new Error("none of the listed hosts takes writes (each is down or a standby)"), { code: "ERR_POSTGRES_NO_PRIMARY" });
    if (i !== this.at) {
      const old = this.current;
      this.current = this.open(this.urls[i]!);
      this.at = i;
      await old.close({ timeout: 0 }).catch(() => {});
    }
  }

  close(): Promise<void> {
    return this.current.close();
  }
}

/** host:port of a URL, for a log line: never its user or password. */
const hostOf = (url: string) => new URL(url).host;
