import { and, asc, eq, gt, lte, min, sql } from "drizzle-orm";
import { placeholders } from "@payaccept/platform";
import type { AcquirerDb } from "./db.ts";
import { callbacks, methods, sessions, type SessionRow } from "./schema.ts";

const p = sql.placeholder;
const pending = eq(callbacks.state, "pending");

/** The columns a new session is written with (the rest start null); every one is given, defaults included. */
export type SessionInsert = Omit<typeof sessions.$inferInsert, "declineReason" | "paidAt" | "holdExpiresAt" | "capturedKopecks" | "pendingCard"> &
  Required<Pick<typeof sessions.$inferInsert, "description" | "expiresAt" | "saveMethod" | "hold" | "methodId" | "merchantName">>;

/**
 * The statements of a charge, a session's outcome and a callback's delivery, built and prepared
 * once per store: building and preparing a statement costs more than running it. A session's
 * update is prepared once per set of columns it sets.
 */
function prepare(db: AcquirerDb) {
  const updatesByColumns = new Map<string, ReturnType<typeof sessionUpdate>>();
  const sessionUpdate = (columns: string[]) =>
    db
      .update(sessions)
      .set(Object.fromEntries(columns.map((c) => [c, p(c)])))
      .where(eq(sessions.id, p("id")))
      .returning()
      .prepare();
  const sessionById = db.select().from(sessions).where(eq(sessions.id, p("id"))).prepare();
  const chargeById = db
    .select()
    .from(sessions)
    .where(and(eq(sessions.merchantPaymentId, p("chargeId")), eq(sessions.kind, "CHARGE")))
    .prepare();
  const insertSession = db
    .insert(sessions)
    .values(placeholders("id", "merchantPaymentId", "kind", "method", "status", "amountKopecks", "description", "returnUrl", "callbackUrl", "expiresAt", "saveMethod", "hold", "methodId", "merchantName", "createdAt"))
    .onConflictDoNothing()
    .returning()
    .prepare();
  const methodById = db.select().from(methods).where(eq(methods.id, p("id"))).prepare();
  const insertCallback = db.insert(callbacks).values(placeholders("id", "sessionId", "url", "body", "state", "nextAttemptAt", "createdAt")).prepare();
  const pendingCallback = db.select().from(callbacks).where(and(eq(callbacks.id, p("id")), pending)).prepare();
  const dueCallbacks = db
    .select()
    .from(callbacks)
    .where(and(pending, lte(callbacks.nextAttemptAt, p("now"))))
    .orderBy(asc(callbacks.nextAttemptAt))
    .limit(p("limit"))
    .prepare();
  const nextDueAfter = db
    .select({ at: min(callbacks.nextAttemptAt) })
    .from(callbacks)
    .where(and(pending, gt(callbacks.nextAttemptAt, p("now"))))
    .prepare();
  const markDelivered = db
    .update(callbacks)
    .set({ state: "delivered", attempts: sql`${p("attempts")}`, deliveredAt: sql`${p("now")}`, lastError: null })
    .where(eq(callbacks.id, p("id")))
    .prepare();
  return {
    sessionById: (id: string) => sessionById.get({ id }),
    chargeById: (chargeId: string) => chargeById.get({ chargeId }),
    /** The new session, or undefined when one exists for its (merchantPaymentId, method). */
    insertSession: (values: SessionInsert) => insertSession.get(values),
    updateSession(id: string, patch: Partial<SessionRow>): SessionRow {
      const columns = Object.keys(patch).sort();
      const key = columns.join(",");
      let q = updatesByColumns.get(key);
      if (!q) updatesByColumns.set(key, (q = sessionUpdate(columns)));
      return q.get({ ...patch, id })!;
    },
    methodById: (id: string) => methodById.get({ id }),
    insertCallback: (values: typeof callbacks.$inferInsert) => insertCallback.run(values),
    pendingCallback: (id: string) => pendingCallback.get({ id }),
    dueCallbacks: (now: number, limit: number) => dueCallbacks.all({ now, limit }),
    nextDueAfter: (now: number) => nextDueAfter.get({ now })?.at ?? null,
    markDelivered: (id: string, attempts: number, now: number) => markDelivered.run({ id, attempts, now }),
  };
}

const byStore = new WeakMap<AcquirerDb, ReturnType<typeof prepare>>();

/** The store's prepared statements, prepared on first use. */
export function statements(db: AcquirerDb): ReturnType<typeof prepare> {
  let s = byStore.get(db);
  if (!s) byStore.set(db, (s = prepare(db)));
  return s;
}
