import { and, asc, eq, lte, min } from "drizzle-orm";
import type { AcquirerDb } from "../store/db.ts";
import { callbacks, type CallbackRow } from "../store/schema.ts";

const pending = eq(callbacks.state, "pending");

export function dueCallbacks(db: AcquirerDb, now: number, limit: number): CallbackRow[] {
  return db
    .select()
    .from(callbacks)
    .where(and(pending, lte(callbacks.nextAttemptAt, now)))
    .orderBy(asc(callbacks.nextAttemptAt))
    .limit(limit)
    .all();
}

export function pendingCallback(db: AcquirerDb, id: string): CallbackRow | undefined {
  return db.select().from(callbacks).where(and(eq(callbacks.id, id), pending)).get();
}

/** The earliest moment any pending callback is due, or null when none is pending. */
export function nextDueAt(db: AcquirerDb): number | null {
  return db.select({ at: min(callbacks.nextAttemptAt) }).from(callbacks).where(pending).get()?.at ?? null;
}

export function markDelivered(db: AcquirerDb, id: string, attempts: number, now: number): void {
  db.update(callbacks).set({ state: "delivered", attempts, deliveredAt: now, lastError: null }).where(eq(callbacks.id, id)).run();
}

/** A failed attempt: schedule the next one, or abandon the callback when nextAt is null. */
export function markFailed(db: AcquirerDb, id: string, attempts: number, error: string, nextAt: number | null): void {
  db.update(callbacks)
    .set(nextAt === null ? { state: "abandoned", attempts, lastError: error } : { attempts, lastError: error, nextAttemptAt: nextAt })
    .where(eq(callbacks.id, id))
    .run();
}
