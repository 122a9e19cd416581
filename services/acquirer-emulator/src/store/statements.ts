import { and, asc, eq, gt, lte, min, sql } from "drizzle-orm";
import { placeholders } from "@payaccept/platform";
import type { AcquirerDb } from "./db.ts";
import { callbacks, methods, sessions, type SessionRow } from "./schema.ts";

const p = sql.placeholder;
const pending = eq(callbacks.state, "pending");

type SessionColumns = typeof sessions.$inferInsert;
/** What a new session's optional columns hold when its opener does not say. */
const SESSION_DEFAULTS = {
  description: null,
  expiresAt: null,
  saveMethod: false,
  hold: false,
  methodId: null,
  merchantName: null,
} satisfies Partial<SessionColumns>;
type Defaulted = keyof typeof SESSION_DEFAULTS;

/** The columns a new session is written with (the rest start null); those of SESSION_DEFAULTS may be left out. */
export type SessionInsert = Omit<SessionColumns, "declineReason" | "paidAt" | "holdExpiresAt" | "capturedKopecks" | "pendingCard" | Defaulted> &
  Partial<Pick<SessionColumns, Defaulted>>;

/**
 * The statements of sessions, saved methods and callbacks, built and prepared
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
  const sessionByPaymentMethod = db
    .select()
    .from(sessions)
    .where(and(eq(sessions.merchantPaymentId, p("merchantPaymentId")), eq(sessions.method, p("method"))))
    .prepare();
  const dueHolds = db
    .select()
    .from(sessions)
    .where(and(eq(sessions.status, "AUTHORIZED"), lte(sessions.holdExpiresAt, p("now"))))
    .orderBy(asc(sessions.holdExpiresAt))
    .limit(p("limit"))
    .prepare();
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
    sessionByPaymentMethod: (merchantPaymentId: string, method: SessionRow["method"]) => sessionByPaymentMethod.get({ merchantPaymentId, method }),
    /** AUTHORIZED sessions whose hold deadline passed, the oldest first. */
    dueHolds: (now: number, limit: number) => dueHolds.all({ now, limit }),
    chargeById: (chargeId: string) => chargeById.get({ chargeId }),
    /** The new session, or undefined when one exists for its (merchantPaymentId, method). */
    insertSession(values: SessionInsert) {
      const row: Record<string, unknown> = { ...values };
      for (const [column, value] of Object.entries(SESSION_DEFAULTS)) row[column] ??= value;
      return insertSession.get(row);
    },
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
