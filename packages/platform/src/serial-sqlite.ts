import type { Database } from "bun:sqlite";

/**
 * The async face of a SQLite store, for repositories that also run on PostgreSQL
 * (docs/conventions.md, "One repository, two engines"). bun:sqlite has one synchronous
 * connection per process: a transaction whose body awaits would let any other request's
 * statements run inside it, see its uncommitted rows, and be rolled back with it. So every
 * statement of the store goes through one queue: a transaction holds it from BEGIN IMMEDIATE
 * (which also takes the file's write lock against other processes) to COMMIT, and a statement
 * outside a transaction waits for the transaction in progress to end.
 */
export class SerialSqlite {
  private locked = false;
  private readonly waiters: (() => void)[] = [];
  private readonly begin;
  private readonly commit;
  private readonly rollback;

  constructor(sqlite: Database) {
    this.begin = sqlite.prepare("BEGIN IMMEDIATE");
    this.commit = sqlite.prepare("COMMIT");
    this.rollback = sqlite.prepare("ROLLBACK");
  }

  /** Runs fn with the store to itself: at once when nothing else holds it. */
  async exclusive<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.locked) await new Promise<void>((resolve) => this.waiters.push(resolve));
    else this.locked = true;
    try {
      return await fn();
    } finally {
      // Handing over keeps the queue locked, so no statement slips in between two holders.
      const next = this.waiters.shift();
      if (next) next();
      else this.locked = false;
    }
  }

  /** One IMMEDIATE transaction around an async body; rolled back whole if the body throws. */
  tx<T>(fn: () => Promise<T>): Promise<T> {
    return this.exclusive(async () => {
      this.begin.run();
      try {
        const value = await fn();
        this.commit.run();
        return value;
      } catch (e) {
        this.rollback.run();
        throw e;
      }
    });
  }

  /** The same methods, each waiting for the transaction in progress: what callers outside tx() use. */
  outsideTx<M extends { [K in keyof M]: (...args: never[]) => Promise<unknown> }>(methods: M): M {
    return Object.fromEntries(
      Object.entries<(...args: never[]) => Promise<unknown>>(methods).map(([name, fn]) => [name, (...args: never[]) => this.exclusive(() => fn(...args))]),
    ) as M;
  }
}
