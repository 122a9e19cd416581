import { eq } from "drizzle-orm";
import type { AcquirerDb } from "../store/db.ts";
import { callbacks, type CallbackRow } from "../store/schema.ts";
import { statements } from "../store/statements.ts";

export const dueCallbacks = (db: AcquirerDb, now: number, limit: number): CallbackRow[] => statements(db).dueCallbacks(now, limit);

export const pendingCallback = (db: AcquirerDb, id: string): CallbackRow | undefined => statements(db).pendingCallback(id);

/** The earliest moment any pending callback is due, or null when none is pending. */
export const nextDueAt = (db: AcquirerDb): number | null => statements(db).nextDueAt();

export const markDelivered = (db: AcquirerDb, id: string, attempts: number, now: number): void => void statements(db).markDelivered(id, attempts, now);

/** A failed attempt: schedule the next one, or abandon the callback when nextAt is null. */
export function markFailed(db: AcquirerDb, id: string, attempts: number, error: string, nextAt: number | null): void {
  db.update(callbacks)
    .set(nextAt === null ? { state: "abandoned", attempts, lastError: error } : { attempts, lastError: error, nextAttemptAt: nextAt })
    .where(eq(callbacks.id, id))
    .run();
}
