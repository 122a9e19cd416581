/**
 * Which PostgreSQL driver the stores use (docs/performance.md, "What the figures decided"): Bun's built-in
 * Bun.SQL through drizzle-orm/bun-sql against postgres.js through drizzle-orm/postgres-js, on a
 * throwaway local PostgreSQL (tests/harness/postgres.ts). For each: a prepared single-row insert
 * and a prepared point select by primary key, through one connection and through a pool of 8,
 * with IN_FLIGHT operations outstanding; prints ops/s. `bun bench/pg-driver.ts` (about a minute).
 */
import { SQL } from "bun";
import { eq, sql } from "drizzle-orm";
import { drizzle as drizzleBunSql } from "drizzle-orm/bun-sql";
import { integer, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { drizzle as drizzlePostgresJs } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { startPostgres } from "../tests/harness/postgres.ts";

const OPS = 5_000;
const WARM_UP = 500;
const IN_FLIGHT = 16;

const items = pgTable("items", {
  id: uuid("id").primaryKey(),
  shopId: text("shop_id").notNull(),
  amountKopecks: integer("amount_kopecks").notNull(),
  description: text("description"),
});

type Db = ReturnType<typeof drizzleBunSql> | ReturnType<typeof drizzlePostgresJs>;
type Driver = { name: string; open: (url: string, max: number) => { db: Db; close: () => Promise<void> } };

const drivers: Driver[] = [
  {
    name: "Bun.SQL (drizzle-orm/bun-sql)",
    open: (url, max) => {
      const client = new SQL(url, { max });
      return { db: drizzleBunSql({ client }), close: () => client.close() };
    },
  },
  {
    name: "postgres.js (drizzle-orm/postgres-js)",
    open: (url, max) => {
      const client = postgres(url, { max, onnotice: () => {} });
      return { db: drizzlePostgresJs({ client }), close: () => client.end() };
    },
  },
];

/** ops/s of `op` run OPS times with IN_FLIGHT outstanding, after WARM_UP unmeasured runs. */
async function measure(op: (i: number) => Promise<unknown>, offset: number): Promise<number> {
  const drive = async (from: number, count: number) => {
    let next = from;
    const end = from + count;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < end) await op(next++);
      }),
    );
  };
  await drive(offset, WARM_UP);
  const started = performance.now();
  await drive(offset + WARM_UP, OPS);
  return OPS / ((performance.now() - started) / 1000);
}

const pg = await startPostgres();
try {
  const setup = new SQL(pg.url, { max: 1 });
  await setup`create table items (id uuid primary key, shop_id text not null, amount_kopecks integer not null, description text)`;
  await setup.close();

  const ids: string[] = [];
  const idFor = (i: number) => (ids[i] ??= Bun.randomUUIDv7());
  let offset = 0;
  console.log(`PostgreSQL driver bench: ${OPS} ops per row after ${WARM_UP} of warm-up, ${IN_FLIGHT} in flight, prepared statements\n`);
  console.log(`${"driver".padEnd(40)}${"pool".padStart(6)}${"insert/s".padStart(12)}${"select/s".padStart(12)}`);
  for (const max of [1, 8]) {
    for (const driver of drivers) {
      const { db, close } = driver.open(pg.url, max);
      const tag = `${driver.name.split(" ")[0]}_${max}`;
      const insert = db
        .insert(items)
        .values({ id: sql.placeholder("id"), shopId: sql.placeholder("shopId"), amountKopecks: sql.placeholder("amount"), description: "bench" })
        .prepare(`insert_${tag}`.replace(/\W/g, "_"));
      const select = db
        .select()
        .from(items)
        .where(eq(items.id, sql.placeholder("id")))
        .prepare(`select_${tag}`.replace(/\W/g, "_"));
      const first = offset;
      const inserts = await measure((i) => insert.execute({ id: idFor(i), shopId: "shop-1", amount: i }), offset);
      offset += WARM_UP + OPS;
      const selects = await measure((i) => select.execute({ id: idFor(first + (i % (WARM_UP + OPS))) }), 0);
      await close();
      console.log(`${driver.name.padEnd(40)}${String(max).padStart(6)}${Math.round(inserts).toLocaleString("en").padStart(12)}${Math.round(selects).toLocaleString("en").padStart(12)}`);
    }
  }
} finally {
  await pg.stop();
}
