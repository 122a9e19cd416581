import type { $Type, BuildColumns, Column, HasDefault, IsPrimaryKey, NotNull, SQL } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as lite from "drizzle-orm/sqlite-core";

/**
 * Tables defined once for both engines (docs/conventions.md, "Schemas"): one definition builds
 * drizzle's `sqliteTable` and `pgTable`, with the same `$inferSelect` and `$inferInsert` on both
 * (`bothEngines` refuses at compile time a table whose rows differ). This file imports drizzle
 * only, so drizzle-kit (under Node) loads it through `@payaccept/platform/table`.
 */

/** One column on both engines: the SQLite builder and the PostgreSQL builder, changed together. */
export class Both<S extends lite.SQLiteColumnBuilderBase, P extends pg.PgColumnBuilderBase> {
  constructor(
    readonly sqlite: S,
    readonly pg: P,
  ) {}

  // drizzle's builders change their own config and return themselves; only the types move on.
  private each(change: (builder: Builder) => unknown) {
    change(this.sqlite as unknown as Builder);
    change(this.pg as unknown as Builder);
    return this as never;
  }

  notNull(): Both<NotNull<S>, NotNull<P>> {
    return this.each((b) => b.notNull());
  }

  /** A literal default, written into both engines' DDL. */
  default(value: Data<S>): Both<HasDefault<S>, HasDefault<P>> {
    return this.each((b) => b.default(value));
  }

  primaryKey(): Both<IsPrimaryKey<NotNull<S>>, IsPrimaryKey<NotNull<P>>> {
    return this.each((b) => b.primaryKey());
  }

  /** A unique key named `<table>_<column>_unique`, as drizzle names it on both engines. */
  unique(): this {
    return this.each((b) => b.unique());
  }

  $type<T>(): Both<$Type<S, T>, $Type<P, T>> {
    return this as never;
  }

  /** A foreign key to a column of another table of the same definition. */
  references<T extends AnyTable>(target: () => T, column: keyof T["sqlite"]["_"]["columns"] & string, actions?: { onDelete?: ReferenceAction }): this {
    (this.sqlite as unknown as Builder).references(() => target().sqlite[column] as lite.SQLiteColumn, actions);
    (this.pg as unknown as Builder).references(() => target().pg[column] as pg.PgColumn, actions);
    return this;
  }
}

type ReferenceAction = "cascade" | "restrict" | "no action" | "set null" | "set default";
type Builder = { notNull(): unknown; default(v: unknown): unknown; primaryKey(): unknown; unique(): unknown; references(ref: () => unknown, actions?: object): unknown };
type Data<B extends lite.SQLiteColumnBuilderBase> = B["_"] extends { $type: infer U } ? U : B["_"]["data"];
type Values = Readonly<[string, ...string[]]>;
type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The column kinds, each one SQLite and one PostgreSQL type. SQLite's INTEGER is 64-bit, so
 * kopecks, seqs and epoch ms are `bigint` (mode number) on PostgreSQL; `integer` is for small
 * counts that fit PostgreSQL's 32-bit integer.
 */
export const kinds = {
  text: <N extends string, const E extends Values = [string, ...string[]]>(name: N, config?: { enum: E }) =>
    new Both(lite.text(name, config as { enum: Writable<E> }) as lite.SQLiteTextBuilderInitial<N, Writable<E>, undefined>, pg.text(name, config as { enum: Writable<E> }) as pg.PgTextBuilderInitial<N, Writable<E>>),
  bigint: <N extends string>(name: N) => new Both(lite.integer(name), pg.bigint(name, { mode: "number" })),
  integer: <N extends string>(name: N) => new Both(lite.integer(name), pg.integer(name)),
  boolean: <N extends string>(name: N) => new Both(lite.integer(name, { mode: "boolean" }), pg.boolean(name)),
  /** JSON text on SQLite, jsonb on PostgreSQL. */
  json: <N extends string>(name: N) => new Both(lite.text(name, { mode: "json" }), pg.jsonb(name)),
  /** A primary key the database numbers: AUTOINCREMENT on SQLite, an identity (by default) on PostgreSQL. */
  identity: <N extends string>(name: N) =>
    new Both(lite.integer(name).primaryKey({ autoIncrement: true }), pg.bigint(name, { mode: "number" }).primaryKey().generatedByDefaultAsIdentity()),
};
export type Kinds = typeof kinds;

type Columns = Record<string, Both<lite.SQLiteColumnBuilderBase, pg.PgColumnBuilderBase>>;
type SqliteColumns<C extends Columns> = { [K in keyof C]: C[K]["sqlite"] };
type PgColumns<C extends Columns> = { [K in keyof C]: C[K]["pg"] };

/** An index, key or CHECK of a table, built for one engine (what `Keys` hands out). */
declare const extra: unique symbol;
export type Extra = { readonly [extra]: true };
type IndexOn = { on(...columns: [Column, ...Column[]]): Extra & { where(condition: SQL): Extra } };

/** drizzle's table extras with one signature for both engines; each engine's own functions build them. */
export type Keys = {
  index(name: string): IndexOn;
  uniqueIndex(name: string): IndexOn;
  /** A composite primary key (drizzle names it `<table>_<columns>_pk`). */
  primaryKey(...columns: [Column, ...Column[]]): Extra;
  check(name: string, condition: SQL): Extra;
};
const keysOf = (core: Pick<typeof lite, "index" | "uniqueIndex" | "check"> & { primaryKey(config: { columns: Column[] }): unknown }): Keys => ({
  index: core.index as never,
  uniqueIndex: core.uniqueIndex as never,
  primaryKey: (...columns) => core.primaryKey({ columns }) as never,
  check: core.check as never,
});
const sqliteKeys = keysOf(lite as never);
const pgKeys = keysOf(pg as never);

/** The extras of a table, given its columns on the engine being built (so `sql` conditions name that engine's columns). */
export type ExtrasOf<C extends Columns> = (t: { [K in keyof C]: Column }, keys: Keys) => Extra[];

/**
 * What only one engine has, declared beside the shared definition: its own extras (a CHECK that
 * the other engine enforces with a trigger) and the triggers its migrations create, by name,
 * which the drift test finds in the migrated database (and no other).
 */
export type EngineOnly<C extends Columns> = { extras?: ExtrasOf<C>; triggers?: string[] };

export type Table<N extends string, C extends Columns> = {
  readonly name: N;
  readonly sqlite: lite.SQLiteTableWithColumns<{ name: N; schema: undefined; columns: BuildColumns<N, SqliteColumns<C>, "sqlite">; dialect: "sqlite" }>;
  readonly pg: pg.PgTableWithColumns<{ name: N; schema: undefined; columns: BuildColumns<N, PgColumns<C>, "pg">; dialect: "pg" }>;
  readonly triggers: { sqlite: string[]; pg: string[] };
};
export type AnyTable = { readonly name: string; readonly sqlite: lite.SQLiteTableWithColumns<any>; readonly pg: pg.PgTableWithColumns<any>; readonly triggers: { sqlite: string[]; pg: string[] } };

/** A row as both engines read it (`bothEngines` holds the two equal). */
export type Row<T extends AnyTable> = T["sqlite"]["$inferSelect"];
/** A row as both engines insert it. */
export type NewRow<T extends AnyTable> = T["sqlite"]["$inferInsert"];

/**
 * One table for both engines: `columns` from the kinds, `extras` (indexes, keys, CHECKs) shared,
 * and what only one engine has under `sqlite`/`pg`, with a comment saying why.
 */
export function table<N extends string, C extends Columns>(
  name: N,
  columns: (k: Kinds) => C,
  extras?: ExtrasOf<C>,
  only: { sqlite?: EngineOnly<C>; pg?: EngineOnly<C> } = {},
): Table<N, C> {
  const defined = Object.entries(columns(kinds));
  const columnsOn = (engine: "sqlite" | "pg") => Object.fromEntries(defined.map(([key, both]) => [key, both[engine]]));
  // Run once per engine, with that engine's columns and functions.
  const extrasOn = (engine: "sqlite" | "pg", keys: Keys): never => ((t: { [K in keyof C]: Column }) => [...(extras?.(t, keys) ?? []), ...(only[engine]?.extras?.(t, keys) ?? [])]) as never;
  return {
    name,
    sqlite: lite.sqliteTable(name, columnsOn("sqlite") as Record<string, lite.SQLiteColumnBuilderBase>, extrasOn("sqlite", sqliteKeys)) as never,
    pg: pg.pgTable(name, columnsOn("pg") as Record<string, pg.PgColumnBuilderBase>, extrasOn("pg", pgKeys)) as never,
    triggers: { sqlite: only.sqlite?.triggers ?? [], pg: only.pg?.triggers ?? [] },
  };
}

type Same<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false;
type SameRows<T extends AnyTable> = Same<T["sqlite"]["$inferSelect"], T["pg"]["$inferSelect"]> extends true ? Same<T["sqlite"]["$inferInsert"], T["pg"]["$inferInsert"]> : false;
type Differing<T extends Record<string, AnyTable>> = { [K in keyof T]: SameRows<T[K]> extends true ? never : K }[keyof T];

/**
 * A service's tables, checked: a table whose rows would differ between the engines is a compile
 * error here, naming it.
 */
export function bothEngines<T extends Record<string, AnyTable>>(tables: T & ([Differing<T>] extends [never] ? unknown : { rowsDifferOnTheEngines: Differing<T> })): T {
  return tables;
}

/** The engine's drizzle tables of a service, under the same keys (for drizzle(), drizzle-kit and the engine's statements). */
export function engineTables<T extends Record<string, AnyTable>, E extends "sqlite" | "pg">(tables: T, engine: E): { [K in keyof T]: T[K][E] } {
  return Object.fromEntries(Object.entries(tables).map(([key, t]) => [key, t[engine]])) as never;
}

/** The table on either engine: what a statement shared by both (a terms module's condition) is typed over. */
export type OnEither<T extends AnyTable> = T["sqlite"] | T["pg"];
