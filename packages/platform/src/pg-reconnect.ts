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
 * "connection refused", which is not retried.
 */
const SERVER_ENDED_SESSION = /^(57P0[1-3]|08...)$/;
const CONNECTION_CLOSED = "ERR_POSTGRES_CONNECTION_CLOSED";

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

async function withRetries<T>(attempt: () => Promise<T>, retryable: (e: unknown) => boolean, tries: number, log?: Logger): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      if (n >= tries || !retryable(e)) throw e;
      const { code, errno } = driverError(e);
      log?.warn({ code, errno, attempt: n }, "PostgreSQL connection was ended by the server; statement sent again on another connection");
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
export function reconnectingClient(client: SQL, pool: number, log?: Logger): SQL {
  const tries = pool + 1;
  const statement = <T>(send: () => PromiseLike<T>) => withRetries(async () => await send(), serverEndedSession, tries, log);
  const facade = {
    unsafe: (query: string, params?: unknown[]): Rows => ({
      then: (onRows, onError) => statement(() => client.unsafe(query, params)).then(onRows, onError),
      values: () => statement(() => client.unsafe(query, params).values()),
    }),
    begin: <T>(body: (tx: SQL) => Promise<T>) => {
      let committing = false;
      return withRetries(
        () =>
          client.begin(async (tx) => {
            committing = false;
            const value = await body(tx);
            committing = true;
            return value;
          }),
        (e) => !committing && transactionLost(e),
        tries,
        log,
      );
    },
  };
  // drizzle's session is typed for the whole SQL class but uses only the members above.
  return facade as unknown as SQL;
}
