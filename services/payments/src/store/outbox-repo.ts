import { asc, eq, isNull, sql } from "drizzle-orm";
import { waiting } from "./conditions.ts";
import { outbox } from "./schema.sqlite.ts";
import type { SqliteStore } from "./payments-repo.ts";
import type { OutboxRepo, OutboxRow } from "./payments-store.ts";

/** The outbox of payments.db: replicas on one file may publish the same row twice, which the stream drops by its Nats-Msg-Id. */
export function createOutboxRepo({ db }: SqliteStore): OutboxRepo {
  const unpublishedQ = db.select().from(outbox).where(isNull(outbox.publishedAt)).orderBy(asc(outbox.seq)).limit(sql.placeholder("limit")).prepare();
  const markQ = db
    .update(outbox)
    .set({ publishedAt: sql`${sql.placeholder("at")}` })
    .where(eq(outbox.seq, sql.placeholder("seq")))
    .prepare();
  const backlogQ = db
    .select(waiting(outbox.createdAt))
    .from(outbox)
    .where(isNull(outbox.publishedAt))
    .prepare();
  return {
    /** How many events wait for the relay, and since when. */
    backlog: async () => backlogQ.get() ?? { count: 0, oldest: null },
    round: async (limit, publish) => {
      const rows: OutboxRow[] = unpublishedQ.all({ limit });
      const confirmed = await publish(rows);
      if (confirmed.length === 0) return rows;
      const at = Date.now();
      db.transaction(
        () => {
          for (const seq of confirmed) markQ.run({ seq, at });
        },
        { behavior: "immediate" },
      );
      return rows;
    },
  };
}
