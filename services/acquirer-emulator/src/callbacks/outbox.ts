import { eq } from "drizzle-orm";
import type { AcquirerDb } from "../store/db.ts";
import { callbacks, type CallbackRow } from "../store/schema.ts";
import { statements } from "../store/statements.ts";

/**
 * Up to `limit` pending callbacks due at `now`, earliest first, but those in `skip` (in flight):
 * asked for beyond them, so that they hide none of the others.
 */
export const dueCallbacks = (db: AcquirerDb, now: number, limit: number, skip: Pick<ReadonlySet<string>, "has" | "size"> = new Set()): CallbackRow[] =>
  statements(db)
    .dueCallbacks(now, limit + skip.size)
    .filter((c) => !skip.has(c.id))
    .slice(0, limit);

export const pendingCallback = (db: AcquirerDb, id: string): CallbackRow | undefined => statements(db).pendingCallback(id);

/** The earliest moment after `now` a pending callback falls due, or null when none will. */
export const nextDueAfter = (db: AcquirerDb, now: number): number | null => statements(db).nextDueAfter(now);

export const markDelivered = (db: AcquirerDb, id: string, attempts: number, now: number): void => void statements(db).markDelivered(id, attempts, now);

/** A failed attempt: schedule the next one, or abandon the callback when nextAt is null. */
export function markFailed(db: AcquirerDb, id: string, attempts: number, error: string, nextAt: number | null): void {
  db.update(callbacks)
    .set(nextAt === null ? { state: "abandoned", attempts, lastError: error } : { attempts, lastError: error, nextAttemptAt: nextAt })
    .where(eq(callbacks.id, id))
    .run();
}
