import { asc, eq, sql } from "drizzle-orm";
import type { SqliteStore } from "./payments-repo.ts";
import type { EndedMethod, MethodEnd } from "./payments-store.ts";
import { methodActive, methodExpired, methodsOrder, methodsPage } from "./conditions.ts";
import { methodEndedFields, methodEventStatus, paymentEventRow, withTrace } from "./rows.ts";
import { outbox, payments as p, savedMethods as m } from "./schema.sqlite.ts";
import type { SavedMethodRow } from "./schema.ts";

const ph = sql.placeholder;

/**
 * The saved methods of payments.db (SQLite). A method's end and its event commit in one IMMEDIATE
 * transaction; the UPDATE only takes an ACTIVE method, so a method ends once. `onEnded` runs after
 * the commit.
 */
export function createSavedMethodsRepo({ db }: SqliteStore, onEnded: (e: EndedMethod) => void) {
  const byIdQ = db.select().from(m).where(eq(m.id, ph("id"))).prepare();
  const byProviderQ = db.select().from(m).where(eq(m.providerMethodId, ph("providerMethodId"))).prepare();
  const dueQ = db.select({ id: m.id }).from(m).where(methodExpired(m, ph("now"))).orderBy(asc(m.expiresAt)).limit(ph("limit")).prepare();

  return {
    byId: (id: string): SavedMethodRow | undefined => byIdQ.get({ id }),
    byProviderId: (providerMethodId: string): SavedMethodRow | undefined => byProviderQ.get({ providerMethodId }),
    list: (shopId: string, f: { customerId?: string; startingAfter?: string; limit: number }): SavedMethodRow[] =>
      db.select().from(m).where(methodsPage(m, shopId, f)).orderBy(...methodsOrder(m)).limit(f.limit).all(),

    end(id: string, how: MethodEnd, now: number): { method: SavedMethodRow; ended: boolean } | undefined {
      const event = methodEventStatus(how);
      const { trace } = withTrace();
      const result = db.transaction(
        () => {
          const ended = db.update(m).set(methodEndedFields(how, now)).where(methodActive(m, id)).returning().get();
          if (!ended) {
            const row = byIdQ.get({ id });
            return row && { method: row, ended: false };
          }
          if (event) {
            const payment = db.select().from(p).where(eq(p.id, ended.paymentId)).get()!;
            db.insert(outbox).values(paymentEventRow(payment, payment.status, now, undefined, trace, { status: event, method: ended })).run();
          }
          return { method: ended, ended: true };
        },
        { behavior: "immediate" },
      );
      if (result?.ended) onEnded({ method: result.method, event });
      return result;
    },

    dueForExpiry: (now: number, limit: number): string[] => dueQ.all({ now, limit }).map((r) => r.id),
  };
}
