import { getTableColumns, sql, type Column, type Placeholder, type SQL, type Table } from "drizzle-orm";
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import type { AppendToNullabilityMap, AppendToResult, JoinNullability, JoinType, SelectMode, SelectResult, SelectResultFields } from "drizzle-orm/query-builders/select.types";
import type { AnyTable, OnEither } from "./table.ts";

/**
 * Statements written once for both engines (docs/conventions.md, "One repository, two engines").
 * drizzle's SQLite and PostgreSQL builders build the same chains, but their types are two
 * unrelated families, so a chain cannot be written over "either". `Db<E>` is the part of both
 * that a shared statement uses (select, insert, update, delete and their clauses), typed with
 * drizzle's own dialect-free result types; what it builds stays open on how it runs, which is
 * the engine's: `.get()/.all()/.run()` and `.prepare()` on SQLite, `await`, `.for("update")` and
 * `.prepare(name)` on PostgreSQL (`Runs<E, R>`). A store's terms module writes its statements over
 * `Db<E>` and the tables of either engine; each engine file hands it its own database
 * (`sqliteStatements`/`pgStatements`) and runs what comes back.
 */

export type Dialect = "sqlite" | "pg";

/** A value a shared statement takes: itself, or a placeholder, for a statement SQLite prepares once. */
export type Value<T> = T | Placeholder;

/** The values of a prepared statement, each a placeholder filled from the parameter of its name: `{ id: sql.placeholder("id"), … }`. */
export const placeholders = <K extends string>(...names: K[]) => Object.fromEntries(names.map((name) => [name, sql.placeholder(name)])) as { [N in K]: Placeholder<N> };

type Params = Record<string, unknown>;

/**
 * An upsert's SET taking these columns from the row the INSERT proposed (`excluded.<column>`, the
 * same words on both engines): what a second insert of the same key replaces.
 */
export function fromExcluded<T extends Table, K extends keyof T["_"]["columns"] & string>(table: T, keys: readonly K[]): Record<K, SQL> {
  const columns = getTableColumns(table);
  return Object.fromEntries(keys.map((k) => [k, sql.raw(`excluded."${columns[k]!.name}"`)])) as Record<K, SQL>;
}

/** Every column but `key` from the proposed row: a second insert of the key replaces the whole row. */
export function allFromExcluded<T extends Table>(table: T, ...key: (keyof T["_"]["columns"] & string)[]): Record<string, SQL> {
  return fromExcluded(table, Object.keys(getTableColumns(table)).filter((k) => !key.includes(k)) as (keyof T["_"]["columns"] & string)[]);
}

/** How a statement with rows R runs on the engine: what the engine file adds to a shared chain. */
export type Runs<E extends Dialect, R> = (E extends "sqlite"
  ? { get(): R | undefined; all(): R[]; run(): unknown; prepare(): { get(params?: Params): R | undefined; all(params?: Params): R[]; run(params?: Params): unknown } }
  : Promise<R[]> & { prepare(name: string): { execute(params?: Params): Promise<R[]> } }) & {
  /** The statement as SQL, to be part of another (a PostgreSQL data-modifying CTE). */
  getSQL(): SQL;
};

/** A SELECT's rows on PostgreSQL may also be locked; SQLite's write transaction holds the whole file. */
export type SelectRuns<E extends Dialect, R> = Runs<E, R> & (E extends "pg" ? { for(strength: "update" | "share", config?: { noWait?: boolean; skipLocked?: boolean }): Runs<E, R> } : unknown);

type Condition = SQL | undefined;
type OrderBy = Column | SQL | SQL.Aliased;
/** A value a statement writes: the value itself, an expression, or a placeholder of a prepared statement. */
type Written<V> = V | SQL | Placeholder;
export type Values<T extends Table> = { [K in keyof T["$inferInsert"]]: Written<T["$inferInsert"][K]> };
export type SetOf<T extends Table> = { [K in keyof T["$inferInsert"]]?: Written<T["$inferInsert"][K]> | undefined };
type Fields = Record<string, unknown>;
type Columns<T extends Table> = T["_"]["columns"];
type Name<T extends Table> = T["_"]["name"];

type Select<E extends Dialect, N extends string, S, M extends SelectMode, NM extends Record<string, JoinNullability>> = SelectRuns<E, SelectResult<S, M, NM>> & {
  where(condition: Condition): Select<E, N, S, M, NM>;
  orderBy(...by: OrderBy[]): Select<E, N, S, M, NM>;
  groupBy(...by: (Column | SQL)[]): Select<E, N, S, M, NM>;
  having(condition: Condition): Select<E, N, S, M, NM>;
  limit(n: number | Placeholder): Select<E, N, S, M, NM>;
  offset(n: number | Placeholder): Select<E, N, S, M, NM>;
  innerJoin<T extends Table>(table: T, on: Condition): Joined<E, N, S, M, NM, T, "inner">;
  leftJoin<T extends Table>(table: T, on: Condition): Joined<E, N, S, M, NM, T, "left">;
};
type Joined<E extends Dialect, N extends string, S, M extends SelectMode, NM extends Record<string, JoinNullability>, T extends Table, J extends JoinType> = Select<
  E,
  N,
  AppendToResult<N, S, Name<T>, Columns<T>, M>,
  M extends "partial" ? M : "multiple",
  AppendToNullabilityMap<NM, Name<T>, J>
>;

type Returning<E extends Dialect, T extends Table> = {
  returning(): Runs<E, T["$inferSelect"]>;
  returning<F extends Fields>(fields: F): Runs<E, SelectResultFields<F>>;
};
type Upsert<T extends Table> = { target: Column | Column[]; set: SetOf<T>; setWhere?: SQL };
type Insert<E extends Dialect, T extends Table> = Runs<E, never> &
  Returning<E, T> & {
    onConflictDoNothing(config?: { target?: Column | Column[] }): Runs<E, never> & Returning<E, T>;
    onConflictDoUpdate(config: Upsert<T>): Runs<E, never> & Returning<E, T>;
  };
type Update<E extends Dialect, T extends Table> = Runs<E, never> & Returning<E, T> & { where(condition: Condition): Update<E, T> };
type Delete<E extends Dialect, T extends Table> = Runs<E, never> & Returning<E, T> & { where(condition: Condition): Delete<E, T> };

/** The database (or a transaction) as a statement shared by both engines sees it. */
export type Db<E extends Dialect> = {
  select(): { from<T extends Table>(table: T): Select<E, Name<T>, Columns<T>, "single", Record<Name<T>, "not-null">> };
  select<S extends Fields>(fields: S): {
    from<T extends Table>(table: T): Select<E, Name<T>, S, "partial", Record<Name<T>, "not-null">>;
    /** Fields over a source of its own, e.g. scalar subqueries over a one-row `(select 1) as one`. */
    from(source: SQL): Select<E, string, S, "partial", Record<string, "not-null">>;
  };
  insert<T extends Table>(table: T): { values(values: Values<T> | Values<T>[]): Insert<E, T> };
  update<T extends Table>(table: T): { set(values: SetOf<T>): Update<E, T> };
  delete<T extends Table>(table: T): Delete<E, T>;
};

/** A service's tables on either engine, under their keys: what a shared statement names. */
export type EitherTables<T extends Record<string, AnyTable>> = { [K in keyof T]: OnEither<T[K]> };

/** The SQLite database, for the shared statements: the same object, seen through `Db`. */
export const sqliteDb = (db: BunSQLiteDatabase<never> | BunSQLiteDatabase<Record<string, unknown>>): Db<"sqlite"> => db as unknown as Db<"sqlite">;

/** The PostgreSQL pool or a transaction of it, for the shared statements: the same object, seen through `Db`. */
export const pgDb = (db: Pick<BunSQLDatabase<Record<string, unknown>>, "select" | "insert" | "update" | "delete">): Db<"pg"> => db as unknown as Db<"pg">;

/**
 * How an engine runs a shared statement, for a repository whose methods are async on both engines
 * (those with `tx(fn)`): its methods can then be written once too, over `Run<E>`, and each engine
 * file hands over its own. On SQLite the statements run at once (SerialSqlite already holds the
 * store for the method); on PostgreSQL they are awaited.
 */
export type Run<E extends Dialect> = {
  /** The first row, if any. */
  one<R>(statement: Runs<E, R>): Promise<R | undefined>;
  all<R>(statement: Runs<E, R>): Promise<R[]>;
  /** Runs a statement whose rows nobody reads. */
  done(statement: Runs<E, unknown>): Promise<void>;
  /**
   * The SELECT whose rows the transaction holds until it ends, to run or to use as a subquery:
   * `FOR UPDATE` on PostgreSQL (with `skipLocked`, rows another transaction holds are left out);
   * on SQLite the statement as it is, the transaction's BEGIN IMMEDIATE already holding the file.
   */
  forUpdate<R>(statement: SelectRuns<E, R>, config?: { skipLocked?: boolean }): Runs<E, R>;
};

export const sqliteRun: Run<"sqlite"> = {
  one: async (s) => s.get(),
  all: async (s) => s.all(),
  done: async (s) => void s.run(),
  forUpdate: (s) => s,
};

/** The first row a PostgreSQL statement answers, if any. */
export const firstRow = async <R>(rows: PromiseLike<R[]>): Promise<R | undefined> => (await rows)[0];

export const pgRun: Run<"pg"> = {
  one: firstRow,
  all: (s) => s,
  done: async (s) => void (await s),
  forUpdate: (s, config) => s.for("update", config),
};
