import { join } from "node:path";
import { and, asc, desc, eq, gte, inArray, isNotNull, lt, lte, sql, type SQL } from "drizzle-orm";
import { openStore } from "@payaccept/platform";
import type { DeliveryHealth, DeliveryResult, Failure } from "@payaccept/contracts";
import { failureColumns, failureFrom } from "./failure-columns.ts";
import { attempts, deliveries, FAILING, healthDaily, schema, type AttemptRow, type DeliveryRow, type HealthState } from "./schema.ts";

const MIGRATIONS = join(import.meta.dir, "../../drizzle");
const p = sql.placeholder;

export type NewDelivery = Pick<DeliveryRow, "id" | "shopId" | "paymentId" | "status" | "orderId" | "body" | "occurredAt" | "createdAt">;
export type SeriesState = { result: DeliveryResult; lastError: Failure | null; nextAttemptAt: number | null; at: number };
export type NewAttempt = Omit<AttemptRow, "errorCode" | "errorParams"> & { error: Failure | null };
/** A shop's webhook health; the RPC gives its last error the API's three fields. */
export type ShopHealth = Omit<DeliveryHealth, "lastError" | "lastErrorCode" | "lastErrorParams"> & { lastError: Failure | null };
export type LogQuery = { shopId: string; paymentId?: string; before?: string; limit: number; status?: string; failedOnly?: boolean; orderId?: string };
export type UnqueuedSeries = Pick<DeliveryRow, "id" | "shopId" | "series">;

/**
 * webhooks.db: deliveries and their attempts. Hot-path statements are prepared once; every method
 * runs on the one SQLite connection, so the multi-statement ones are transactions. Replicas on one
 * host share the file: every write is one statement or an IMMEDIATE transaction.
 */
export type DeliveryStore = ReturnType<typeof openDeliveryStore>;

export function openDeliveryStore(path: string) {
  const { sqlite, db } = openStore(path, schema, MIGRATIONS);

  const insertDelivery = db
    .insert(deliveries)
    .values({
      id: p("id"),
      shopId: p("shopId"),
      paymentId: p("paymentId"),
      status: p("status"),
      orderId: p("orderId"),
      body: p("body"),
      occurredAt: p("occurredAt"),
      createdAt: p("createdAt"),
      nextAttemptAt: p("createdAt"),
      updatedAt: p("createdAt"),
    })
    .onConflictDoNothing()
    .returning({ id: deliveries.id })
    .prepare();

  const byId = db.select().from(deliveries).where(eq(deliveries.id, p("id"))).prepare();

  const insertAttempt = db
    .insert(attempts)
    .values({
      deliveryId: p("deliveryId"),
      series: p("series"),
      attempt: p("attempt"),
      startedAt: p("startedAt"),
      durationMs: p("durationMs"),
      httpStatus: p("httpStatus"),
      errorCode: p("errorCode"),
      errorParams: p("errorParams"),
    })
    .onConflictDoNothing()
    .returning({ attempt: attempts.attempt })
    .prepare();

  // Only the series the attempt belongs to: a resend may have started a newer one meanwhile.
  const applyAttempt = db
    .update(deliveries)
    .set({
      seriesAttempts: sql`${p("attempt")}`,
      result: sql`${p("result")}`,
      lastErrorCode: sql`${p("lastErrorCode")}`,
      lastErrorParams: sql`${p("lastErrorParams")}`,
      nextAttemptAt: sql`${p("nextAttemptAt")}`,
      updatedAt: sql`${p("at")}`,
    })
    .where(and(eq(deliveries.id, p("deliveryId")), eq(deliveries.series, p("series"))))
    .prepare();

  const newSeriesSet = (at: SQL | number) => ({
    series: sql`${deliveries.series} + 1`,
    seriesAttempts: 0,
    result: "pending" as const,
    lastErrorCode: null,
    lastErrorParams: null,
    nextAttemptAt: at,
    updatedAt: at,
  });

  const restartOne = db
    .update(deliveries)
    .set(newSeriesSet(sql`${p("at")}`))
    .where(and(eq(deliveries.id, p("id")), eq(deliveries.shopId, p("shopId"))))
    .returning()
    .prepare();

  const unqueued = db
    .select({ id: deliveries.id, shopId: deliveries.shopId, series: deliveries.series })
    .from(deliveries)
    .where(sql`${deliveries.queuedSeries} < ${deliveries.series}`)
    .orderBy(asc(deliveries.id))
    .limit(p("limit"))
    .prepare();

  const markQueued = db
    .update(deliveries)
    .set({ queuedSeries: sql`max(${deliveries.queuedSeries}, ${p("series")})` })
    .where(eq(deliveries.id, p("id")))
    .prepare();

  const latestErrorQ = db
    .select({ code: deliveries.lastErrorCode, params: deliveries.lastErrorParams })
    .from(deliveries)
    .where(and(eq(deliveries.shopId, p("shopId")), FAILING, isNotNull(deliveries.lastErrorCode)))
    .orderBy(desc(deliveries.id))
    .limit(1)
    .prepare();
  const latestError = (shopId: string) => {
    const row = latestErrorQ.get({ shopId });
    return row ? failureFrom(row.code, row.params) : null;
  };

  const attemptsOf = (ids: string[]) =>
    ids.length === 0
      ? []
      : db.select().from(attempts).where(inArray(attempts.deliveryId, ids)).orderBy(asc(attempts.series), asc(attempts.attempt)).all();

  return {
    /** False when the (payment id, status) pair is already recorded. */
    insertDelivery(d: NewDelivery): boolean {
      return insertDelivery.all(d).length === 1;
    },

    /**
     * Records many deliveries in one IMMEDIATE transaction (one commit): each entry is false when
     * its (payment id, status) pair was already recorded, earlier or by an entry before it.
     */
    insertDeliveries(ds: NewDelivery[]): boolean[] {
      return sqlite.transaction(() => ds.map((d) => insertDelivery.all(d).length === 1)).immediate();
    },

    get(id: string): DeliveryRow | undefined {
      return byId.get({ id });
    },

    /**
     * Logs the attempt and moves its series on, together. False when that attempt number was
     * already logged (a redelivered copy raced this one); the store is then left as the first left it.
     */
    recordAttempt(attempt: NewAttempt, next: SeriesState): boolean {
      const { error, ...rest } = attempt;
      const a = { ...rest, ...failureColumns(error) };
      const { lastError, ...state } = next;
      const last = failureColumns(lastError);
      // IMMEDIATE: replicas share the file, and a transaction that takes the write lock up front
      // waits for another process's instead of failing on an upgrade from a read lock.
      return sqlite.transaction(() => {
        if (insertAttempt.all(a).length === 0) return false;
        applyAttempt.run({ deliveryId: a.deliveryId, series: a.series, attempt: a.attempt, ...state, lastErrorCode: last.errorCode, lastErrorParams: last.errorParams });
        return true;
      }).immediate();
    },

    /** Starts a new attempt series of one delivery of the shop; undefined when it has no such delivery. */
    restart(shopId: string, id: string, at: number): DeliveryRow | undefined {
      return restartOne.get({ shopId, id, at });
    },

    /** Starts a new attempt series for every delivery of the shop whose event occurred at or after `since`. */
    restartSince(shopId: string, since: number, at: number): number {
      return db
        .update(deliveries)
        .set(newSeriesSet(at))
        .where(and(eq(deliveries.shopId, shopId), gte(deliveries.occurredAt, since)))
        .returning({ id: deliveries.id })
        .all().length;
    },

    /** Series whose dispatch message is not yet confirmed by JetStream, oldest first. */
    unqueued(limit: number): UnqueuedSeries[] {
      return unqueued.all({ limit });
    },

    /** Every pending series goes back to the relay: their messages were lost with the dispatch stream. */
    requeuePending(): number {
      return db
        .update(deliveries)
        .set({ queuedSeries: 0 })
        .where(eq(deliveries.result, "pending"))
        .returning({ id: deliveries.id })
        .all().length;
    },

    markQueued(id: string, series: number): void {
      markQueued.run({ id, series });
    },

    /** markQueued for many series in one IMMEDIATE transaction. */
    markQueuedMany(rows: { id: string; series: number }[]): void {
      if (rows.length === 0) return;
      sqlite.transaction(() => {
        for (const r of rows) markQueued.run({ id: r.id, series: r.series });
      }).immediate();
    },

    /** A page of the shop's deliveries, newest first, each with its attempts in order; every filter has its index. */
    list(q: LogQuery): { delivery: DeliveryRow; attempts: AttemptRow[] }[] {
      const rows = db
        .select()
        .from(deliveries)
        .where(
          and(
            eq(deliveries.shopId, q.shopId),
            q.paymentId === undefined ? undefined : eq(deliveries.paymentId, q.paymentId),
            q.before === undefined ? undefined : lt(deliveries.id, q.before),
            q.status === undefined ? undefined : eq(deliveries.status, q.status),
            q.orderId === undefined ? undefined : eq(deliveries.orderId, q.orderId),
            q.failedOnly ? FAILING : undefined,
          ),
        )
        .orderBy(desc(deliveries.id))
        .limit(q.limit)
        .all();
      const byDelivery = Map.groupBy(attemptsOf(rows.map((r) => r.id)), (a) => a.deliveryId);
      return rows.map((delivery) => ({ delivery, attempts: byDelivery.get(delivery.id) ?? [] }));
    },

    /** Per shop, the deliveries whose event occurred on Moscow days [fromDay, toDay] (the daily rollup), and the endpoint's latest error. */
    health(shopIds: string[], fromDay: string, toDay: string): ShopHealth[] {
      const cells = db
        .select({ shopId: healthDaily.shopId, state: healthDaily.state, count: sql<number>`sum(${healthDaily.count})` })
        .from(healthDaily)
        .where(and(inArray(healthDaily.shopId, shopIds), gte(healthDaily.day, fromDay), lte(healthDaily.day, toDay)))
        .groupBy(healthDaily.shopId, healthDaily.state)
        .all();
      return [...Map.groupBy(cells, (c) => c.shopId)].flatMap(([shopId, states]) => {
        const n = (state: HealthState) => states.find((s) => s.state === state)?.count ?? 0;
        const total = states.reduce((sum, s) => sum + s.count, 0);
        if (total === 0) return [];
        const figures = { shopId, total, firstAttempt: n("first"), delivered: n("first") + n("delivered"), failed: n("failed"), retrying: n("retrying") };
        return [{ ...figures, lastError: figures.failed + figures.retrying === 0 ? null : latestError(shopId) }];
      });
    },

    attemptsOf(id: string): AttemptRow[] {
      return attemptsOf([id]);
    },

    close(): void {
      sqlite.close();
    },
  };
}
