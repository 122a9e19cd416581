import { resolve } from "node:path";
import { SQL } from "bun";
import { sql } from "drizzle-orm";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import { z } from "zod";
import type { PgTable } from "drizzle-orm/pg-core";
import { duration } from "./config.ts";
import type { Logger } from "./log.ts";
import { importSqliteIntoPg } from "./sqlite-import.ts";
import { PrimaryPool, reconnectingClient } from "./pg-reconnect.ts";
import { registerStoreProbe } from "./store-readiness.ts";
import { registerBackupSource } from "./store-backup.ts";
import { followServerClock } from "./store-clock.ts";

/**
 * Where a service keeps its rows (docs/replicas.md, "Several hosts"). Each service with rows
 * reads its own `<SERVICE>_DATABASE_URL`: unset means its SQLite file under DATA_DIR, a
 * postgres:// URL means PostgreSQL. `?schema=<name>` puts the service's tables in that schema
 * (created on first start), so services may share one database and still each own their store;
 * without it the tables go in the database's `public` schema (a database per service).
 */
export function databaseEnv<P extends string>(service: P) {
  return {
    [`${service}_DATABASE_URL`]: postgresUrl,
    [`${service}_DATABASE_POOL`]: z.coerce.number().int().min(1).max(200).default(10),
    ...sharedDatabaseEnv,
  } as { [K in `${P}_DATABASE_URL`]: typeof postgresUrl } & { [K in `${P}_DATABASE_POOL`]: z.ZodDefault<z.ZodCoercedNumber> } & typeof sharedDatabaseEnv;
}

const sharedDatabaseEnv = {
  /** Longest run of one SQL statement on PostgreSQL before the server cancels it. */
  DATABASE_STATEMENT_TIMEOUT: duration("5s"),
  /** How long a service keeps trying to reach its PostgreSQL at start before it exits. */
  DATABASE_CONNECT_TIMEOUT: duration("30s"),
};

const postgresUrl = z
  .string()
  .optional()
  .refine((v) => v === undefined || v === "" || parsePostgresUrl(v) !== null, {
    // The value itself is not repeated: it may hold a password.
    message:
      "must be a postgres://user:password@host:port[,host2:port2…]/database[?schema=name][&target_session_attrs=read-write] URL (or unset for SQLite under DATA_DIR)",
  });

/**
 * What a URL may ask of the session with `target_session_attrs`: every service writes, so only the
 * server that takes writes will do (libpq's `read-write`, or `primary`, which is the same here).
 */
const WRITABLE_SESSION = new Set(["read-write", "primary"]);

/**
 * The URL without our own `schema` parameter (the driver would pass it on), and that schema. A
 * URL listing several hosts (`host1:5432,host2:5432`, as libpq takes them) becomes one URL per
 * host: Bun.SQL takes one host, and the platform follows the one that takes writes (PrimaryPool).
 */
function parsePostgresUrl(value: string): { url: string; schema: string; otherHosts?: string[] } | null {
  const parts = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]+)(.*)$/.exec(value);
  if (!parts) return null;
  const [, scheme, user = "", hosts, rest] = parts;
  const urls: URL[] = [];
  for (const host of hosts!.split(",")) {
    let u: URL;
    try {
      u = new URL(`${scheme}${user}${host}${rest}`);
    } catch {
      return null;
    }
    if (!u.hostname || u.pathname.length <= 1) return null;
    urls.push(u);
  }
  const first = urls[0]!;
  const schema = first.searchParams.get("schema") ?? "public";
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) return null;
  const attrs = first.searchParams.get("target_session_attrs");
  if (attrs !== null && !WRITABLE_SESSION.has(attrs)) return null;
  for (const u of urls) {
    u.searchParams.delete("schema");
    u.searchParams.delete("target_session_attrs");
  }
  const [url, ...others] = urls.map(String);
  return others.length ? { url: url!, schema, otherHosts: others } : { url: url!, schema };
}

/** The engine a service's rows live on, as its configuration chose it. */
export type DatabaseChoice =
  | { engine: "sqlite"; path: string }
  | {
      engine: "postgres";
      variable: string;
      url: string;
      /** The other hosts a URL listed (a primary and its standbys): the pool follows whichever takes writes. */
      otherHosts?: string[];
      schema: string;
      pool: number;
      statementTimeoutMs: number;
      connectTimeoutMs: number;
      /** CLOCK_OFFSET_WARN, for the server's clock (store-clock.ts); unset: the metric only. */
      clockOffsetWarnMs?: number;
    };

/**
 * Reads the service's choice from a parsed configuration: `file` is its SQLite file name under
 * DATA_DIR (`balance.db`), used when `<SERVICE>_DATABASE_URL` is unset or empty.
 */
export function databaseOf(cfg: Record<string, unknown>, service: string, file: string): DatabaseChoice {
  const variable = `${service}_DATABASE_URL`;
  const value = cfg[variable] as string | undefined;
  // Absolute, so the file stays the same whatever the working directory is when something opens it.
  if (!value) return { engine: "sqlite", path: resolve(cfg.DATA_DIR as string, file) };
  const parsed = parsePostgresUrl(value);
  if (!parsed) throw new Error(`${variable}: not a postgres:// URL`);
  return {
    engine: "postgres",
    variable,
    ...parsed,
    pool: cfg[`${service}_DATABASE_POOL`] as number,
    statementTimeoutMs: cfg.DATABASE_STATEMENT_TIMEOUT as number,
    connectTimeoutMs: cfg.DATABASE_CONNECT_TIMEOUT as number,
    clockOffsetWarnMs: cfg.CLOCK_OFFSET_WARN as number | undefined,
  };
}

export type PgChoice = Extract<DatabaseChoice, { engine: "postgres" }>;
/** A transaction's two faces: drizzle over its connection, and the connection (Bun.SQL) itself. */
export type PgTransaction = { db: BunSQLDatabase<Record<string, never>>; connection: SQL };
export type PgStore<S extends Record<string, unknown>> = {
  client: SQL;
  db: BunSQLDatabase<S>;
  /**
   * A transaction as `db.transaction` runs it (sent again after a server restart, pg-reconnect.ts),
   * whose body also has the transaction's Bun.SQL connection: statements started on it without
   * waiting go out in the order started, several in one round trip, with texts Bun prepares once
   * per connection (drizzle builds its statements anew on every call).
   */
  begin: <T>(body: (tx: PgTransaction) => Promise<T>) => Promise<T>;
  close: () => Promise<void>;
};

/** Raised when the server cannot be reached or refuses us at start: names the variable, never the password. */
export class DatabaseUnreachable extends Error {}

const RETRY_PAUSE_MS = 1000;

/**
 * Opens a pool on the service's PostgreSQL (search_path = its schema, statement_timeout set on
 * every connection; drizzle's statements and transactions sent again after a server restart,
 * pg-reconnect.ts; part of the process's /readyz, store-readiness.ts), waits for the server up to connectTimeoutMs (a log line naming the variable
 * at each failed try: a compose stack starts the database and the services together), then
 * applies the service's committed drizzle migrations under an advisory lock, so replicas
 * starting at once apply each migration once. drizzle's PostgreSQL driver is loaded here, not at
 * start: a service on SQLite never needs it (docs/performance.md, "Memory").
 */
export async function openPgStore<S extends Record<string, unknown>>(choice: PgChoice, schema: S, migrationsFolder: string, log?: Logger): Promise<PgStore<S>> {
  const [{ drizzle }, { migrate }] = await Promise.all([import("drizzle-orm/bun-sql"), import("drizzle-orm/bun-sql/migrator")]);
  const name = choice.variable.replace(/_DATABASE_URL$/, "").toLowerCase();
  const open = (url: string) =>
    new SQL(url, {
      max: choice.pool,
      connectionTimeout: Math.max(1, Math.ceil(Math.min(choice.connectTimeoutMs, 10_000) / 1000)),
      idleTimeout: 60,
      connection: { search_path: choice.schema, statement_timeout: choice.statementTimeoutMs, application_name: name },
    });
  // Several hosts listed: the pool goes where writes are taken, and follows a promoted standby.
  const primary = choice.otherHosts?.length
    ? new PrimaryPool([choice.url, ...choice.otherHosts], open, (url) => new SQL(url, { max: 1, connectionTimeout: 2, idleTimeout: 1, connection: { application_name: `${name}-probe` } }), log)
    : undefined;
  const current = () => primary?.current ?? client;
  const client = primary?.current ?? open(choice.url);
  try {
    await waitForServer(current, choice, log, primary);
    const pooled = reconnectingClient(primary ?? client, choice.pool, log);
    const db = drizzle({ client: pooled, schema });
    await migrateLocked(current(), () => migrate(db, { migrationsFolder, migrationsSchema: choice.schema }), db, choice.schema);
    const unregisterProbe = registerStoreProbe(choice.variable, () => pooled.unsafe("select 1"), log);
    const unregisterBackup = registerBackupSource({ engine: "postgres", variable: choice.variable });
    const unregister = () => {
      unregisterProbe();
      unregisterBackup();
    };
    const stopClock = await followServerClock(
      async () => Number((await pooled.unsafe("select extract(epoch from clock_timestamp()) * 1000 as ms"))[0].ms),
      `postgres:${choice.variable}`,
      log,
      choice.clockOffsetWarnMs,
    );
    return {
      get client() {
        return current();
      },
      db,
      begin: (body) => pooled.begin((connection) => body({ db: drizzle({ client: connection }), connection })),
      close: () => {
        stopClock();
        unregister();
        return current().close();
      },
    };
  } catch (e) {
    await current().close();
    throw e;
  }
}

async function waitForServer(client: () => SQL, choice: PgChoice, log?: Logger, primary?: PrimaryPool): Promise<void> {
  const deadline = Date.now() + choice.connectTimeoutMs;
  const where = [choice.url, ...(choice.otherHosts ?? [])].map((u) => `${new URL(u).hostname}:${new URL(u).port || 5432}`).join(",");
  for (;;) {
    try {
      await primary?.locate();
      await client()`select 1`;
      return;
    } catch (e) {
      const { code, errno } = e as { code?: string; errno?: string };
      // The server answered and said no (no such database, bad password): waiting will not help.
      // Class 57P (starting up, shutting down) is a server on its way: wait for it.
      const refusedByServer = (code === "ERR_POSTGRES_SERVER_ERROR" && !String(errno).startsWith("57P")) || /password|auth/i.test(String(code));
      const reason = `${choice.variable}: PostgreSQL at ${where} ${refusedByServer ? "refused the connection" : "is unreachable"} (${(e as Error).message})`;
      if (refusedByServer || Date.now() >= deadline) throw new DatabaseUnreachable(reason);
      log?.warn({ variable: choice.variable, server: where }, `${reason}; retrying`);
      await Bun.sleep(RETRY_PAUSE_MS);
    }
  }
}

/**
 * drizzle's migrator reads the applied migrations and then applies the rest, so two replicas
 * starting together would both apply them. The session-level advisory lock (keyed by the schema,
 * on a connection reserved for it) lets one replica migrate while the others wait, then find
 * nothing left to do. The lock is the database's, so it holds across hosts.
 */
async function migrateLocked(client: SQL, migrate: () => Promise<void>, db: BunSQLDatabase<Record<string, unknown>>, schema: string): Promise<void> {
  const key = `payaccept.migrations.${schema}`;
  const lock = await client.reserve();
  try {
    await lock`select pg_advisory_lock(hashtext(${key}))`;
    try {
      await db.execute(sql.raw(`create schema if not exists "${schema}"`));
      await migrate();
    } finally {
      await lock`select pg_advisory_unlock(hashtext(${key}))`;
    }
  } finally {
    lock.release();
  }
}

/** What openPgStore throws for an unreachable server, as one line, then exit (like loadConfig). */
export async function orExit<T>(opening: Promise<T>): Promise<T> {
  try {
    return await opening;
  } catch (e) {
    if (e instanceof DatabaseUnreachable) {
      console.error(e.message);
      process.exit(69);
    }
    throw e;
  }
}

/**
 * A deployment moving to PostgreSQL: its SQLite file is copied once into the empty store
 * (importSqliteIntoPg, which names the tables, the file's mark and the lock).
 */
export type SqliteImport<S extends Record<string, unknown>> = {
  /** The service's old file; unset, nothing is imported. */
  from?: string;
  tables: [string, PgTable][];
  mark: string;
  lock: string;
  /** What the log line says came over ("payments", "users and sessions"). */
  what: string;
  /** Runs after a copy, before the store is used (an identity moved past the copied ids). */
  afterCopy?: (pg: PgStore<S>) => Promise<void>;
};

/** How one service's store opens on PostgreSQL: its schema and migrations, and its engine file's opener. */
export type PgEngine<T, S extends Record<string, unknown>> = { schema: S; migrationsFolder: string; open: (pg: PgStore<S>) => T; importFrom?: SqliteImport<S> };

/**
 * The service's store on the engine its configuration chose: its SQLite file (`sqlite` opens it
 * and applies the file's migrations), or its PostgreSQL pool migrated (openPgStore) and, on a deployment
 * moving over, filled once from the old file. The domain gets the one interface either way.
 */
export async function openOnEngine<T, S extends Record<string, unknown>>(
  choice: DatabaseChoice,
  sqlite: (path: string) => T | Promise<T>,
  { schema, migrationsFolder, open, importFrom }: PgEngine<T, S>,
  log?: Logger,
): Promise<T> {
  if (choice.engine === "sqlite") return sqlite(choice.path);
  const pg = await openPgStore(choice, schema, migrationsFolder, log);
  if (importFrom?.from) {
    const imported = await importSqliteIntoPg(pg.db, importFrom.from, importFrom);
    if (imported) {
      await importFrom.afterCopy?.(pg);
      log?.warn({ imported, from: importFrom.from }, `${importFrom.what} imported from the SQLite file; never again from that file`);
    }
  }
  return open(pg);
}
