import { asc, eq, isNull, sql } from "drizzle-orm";
import { outbox } from "./schema.ts";
import type { PaymentsStore } from "./payments-repo.ts";

export type OutboxRow = typeof outbox.$inferSelect;

export function createOutboxRepo({ db }: PaymentsStore) {
  const unpublishedQ = db.select().from(outbox).where(isNull(outbox.publishedAt)).orderBy(asc(outbox.seq)).limit(sql.placeholder("limit")).prepare();
  const markQ = db
    .update(outbox)
    .set({ publishedAt: sql`${sql.placeholder("at")}` })
    .where(eq(outbox.seq, sql.placeholder("seq")))
    .prepare();
  const backlogQ = db
    .select({ count: sql<number>`count(*)`, oldest: sql<number | null>`min(${outbox.createdAt})` })
    .from(outbox)
    .where(isNull(outbox.publishedAt))
    .prepare();
  return {
    /** How many events wait for the relay, and since when. */
    backlog: (): { count: number; oldest: number | null } => backlogQ.get() ?? { count: 0, oldest: null },
    /** Oldest first, so a payment's events reach the stream in the order they happened. */
    unpublished: (limit: number): OutboxRow[] => unpublishedQ.all({ limit }),
    /** Marks the rows as acknowledged by the stream, all in one transaction. */
    markPublished: (seqs: number[], at: number): void =>
      db.transaction(
        () => {
          for (const seq of seqs) markQ.run({ seq, at });
        },
        { behavior: "immediate" },
      ),
  };
}
export type OutboxRepo = ReturnType<typeof createOutboxRepo>;
