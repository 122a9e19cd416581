import { and, asc, desc, eq, gte, inArray, isNotNull, lte, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/sqlite-core";
import { paymentEventId, type ListPaymentsQuery, type PaymentStatus } from "@payaccept/contracts";
import type { Store } from "@payaccept/platform";
import { planList, type ListPlan, type SeqBounds } from "../domain/list-plan.ts";
import { decide, isFinal, type PaymentTrigger, type TransitionDecision } from "../domain/state-machine.ts";
import { toPaymentEvent } from "../domain/views.ts";
import { outbox, payments as p, statusCounts, type NewPaymentRow, type PaymentRow, type schema } from "./schema.ts";

export type PaymentsStore = Store<typeof schema>;

/** What a merchant's create request becomes; the store assigns id, seq, times and status. */
export type NewPayment = Omit<NewPaymentRow, "id" | "seq" | "status" | "createdAt" | "updatedAt" | "expiresAt" | "paidAt" | "methodFixed">;

export type TransitionResult = { decision: TransitionDecision; row: PaymentRow };
export type CommittedTransition = { row: PaymentRow; from: PaymentStatus; to: PaymentStatus; trigger: PaymentTrigger; requestId?: string };

export type ExportFilter = { fromMs?: number; toMs?: number; statuses?: PaymentStatus[]; after?: { createdAt: number; id: string }; limit: number };

export class OrderIdTaken extends Error {}

const ph = sql.placeholder;

/**
 * All reads and writes of payments.db. Every write runs in one IMMEDIATE transaction, so the status,
 * the per-status counters and the outbox row change together or not at all, also with several
 * processes on the same file. `onCommitted` runs after the commit of every status change.
 */
export function createPaymentsRepo(store: PaymentsStore, onCommitted: (t: CommittedTransition) => void) {
  const { db } = store;

  const byIdQ = db.select().from(p).where(eq(p.id, ph("id"))).prepare();
  const byOrderIdQ = db
    .select()
    .from(p)
    .where(and(eq(p.shopId, ph("shopId")), eq(p.orderId, ph("orderId"))))
    .prepare();
  const lastOfShopQ = db
    .select({ seq: p.seq, createdAt: p.createdAt, id: p.id })
    .from(p)
    .where(eq(p.shopId, ph("shopId")))
    .orderBy(desc(p.seq))
    .limit(1)
    .prepare();
  const insertQ = db
    .insert(p)
    .values({
      id: ph("id"),
      shopId: ph("shopId"),
      accountId: ph("accountId"),
      seq: ph("seq"),
      orderId: ph("orderId"),
      status: "CREATED",
      amountKopecks: ph("amountKopecks"),
      commissionKopecks: ph("commissionKopecks"),
      description: ph("description"),
      email: ph("email"),
      method: ph("method"),
      methodFixed: ph("methodFixed"),
      telegramId: ph("telegramId"),
      metadata: ph("metadata"),
      receipt: ph("receipt"),
      successUrl: ph("successUrl"),
      failUrl: ph("failUrl"),
      isTest: ph("isTest"),
      createdAt: ph("createdAt"),
      updatedAt: ph("createdAt"),
      expiresAt: ph("expiresAt"),
    })
    // The UNIQUE index (shop_id, order_id) decides a taken order id: no row comes back.
    .onConflictDoNothing({ target: [p.shopId, p.orderId] })
    .returning()
    .prepare();
  const bumpCountQ = db
    .insert(statusCounts)
    .values({ shopId: ph("shopId"), status: ph("status"), count: ph("delta") })
    .onConflictDoUpdate({ target: [statusCounts.shopId, statusCounts.status], set: { count: sql`${statusCounts.count} + excluded.count` } })
    .prepare();
  const firstAtOrAfterQ = db
    .select({ seq: p.seq })
    .from(p)
    .where(and(eq(p.shopId, ph("shopId")), gte(p.createdAt, ph("at"))))
    .orderBy(asc(p.createdAt), asc(p.id))
    .limit(1)
    .prepare();
  const lastAtOrBeforeQ = db
    .select({ seq: p.seq })
    .from(p)
    .where(and(eq(p.shopId, ph("shopId")), lte(p.createdAt, ph("at"))))
    .orderBy(desc(p.createdAt), desc(p.id))
    .limit(1)
    .prepare();
  const seqRangeQ = db
    .select()
    .from(p)
    .where(and(eq(p.shopId, ph("shopId")), gte(p.seq, ph("first")), lte(p.seq, ph("last"))))
    .orderBy(asc(p.seq))
    .prepare();
  const dueQ = db
    .select({ id: p.id })
    .from(p)
    .where(and(isNotNull(p.expiresAt), lte(p.expiresAt, ph("now"))))
    .orderBy(asc(p.expiresAt))
    .limit(ph("limit"))
    .prepare();

  // A status change without extra fields (cancel, expire, refund: most of them) and its outbox row,
  // prepared once: built per call they cost a SQL build and a SQLite prepare each time.
  const moveQ = (final: boolean) =>
    db
      .update(p)
      .set({ status: sql`${ph("to")}`, updatedAt: sql`${ph("now")}`, ...(final ? { expiresAt: null } : {}) })
      .where(eq(p.id, ph("id")))
      .returning()
      .prepare();
  const moveToFinalQ = moveQ(true);
  const moveToOpenQ = moveQ(false);
  const insertOutboxQ = db
    .insert(outbox)
    .values({ eventId: ph("eventId"), paymentId: ph("paymentId"), status: ph("status"), payload: ph("payload"), requestId: ph("requestId"), createdAt: ph("createdAt") })
    .prepare();

  const bumpCount = (shopId: string, status: PaymentStatus, delta: number) => bumpCountQ.run({ shopId, status, delta });

  /**
   * A status-filtered page: one covering scan of (shop, status, seq) per status, merged in seq order
   * by SQLite (MERGE UNION ALL), so the walk to the offset touches index entries only, never rows.
   */
  function statusWalk(shopId: string, plan: Extract<ListPlan, { kind: "statusWalk" }>): { items: PaymentRow[]; total: number } {
    const range = (status: PaymentStatus) => and(eq(p.shopId, shopId), eq(p.status, status), gte(p.seq, plan.first), lte(p.seq, plan.last));
    const [head, second, ...rest] = plan.statuses.map((status) => db.select({ seq: p.seq }).from(p).where(range(status)));
    const merged = second ? unionAll(head!, second, ...rest) : head!;
    const seqs = merged.orderBy(sql`seq`).limit(plan.limit).offset(plan.offset).all().map((r) => r.seq);
    const items = seqs.length === 0 ? [] : db.select().from(p).where(and(eq(p.shopId, shopId), inArray(p.seq, seqs))).orderBy(asc(p.seq)).all();
    const total =
      plan.total === "counters"
        ? (db
            .select({ n: sql<number>`coalesce(sum(${statusCounts.count}), 0)` })
            .from(statusCounts)
            .where(and(eq(statusCounts.shopId, shopId), inArray(statusCounts.status, plan.statuses)))
            .get()?.n ?? 0)
        : plan.statuses.reduce((sum, status) => sum + (db.select({ n: sql<number>`count(*)` }).from(p).where(range(status)).get()?.n ?? 0), 0);
    return { items, total };
  }

  return {
    byId: (id: string): PaymentRow | undefined => byIdQ.get({ id }),
    byOrderId: (shopId: string, orderId: string): PaymentRow | undefined => byOrderIdQ.get({ shopId, orderId }),

    /** Inserts a CREATED payment expiring at createdAt + ttlMs; throws OrderIdTaken. */
    insert(input: NewPayment, now: number, ttlMs: number): PaymentRow {
      return db.transaction(
          () => {
            const last = lastOfShopQ.get({ shopId: input.shopId });
            // createdAt never goes back within a shop and ties are ordered by id, so seq order,
            // (createdAt, id) order and "oldest to newest" are one and the same.
            let createdAt = Math.max(now, last?.createdAt ?? 0);
            let id = Bun.randomUUIDv7("hex", createdAt);
            if (last && id <= last.id) {
              createdAt = last.createdAt + 1;
              id = Bun.randomUUIDv7("hex", createdAt);
            }
            const row = insertQ.get({
              ...input,
              receipt: input.receipt ?? null,
              methodFixed: input.method != null,
              id,
              seq: (last?.seq ?? 0) + 1,
              createdAt,
              expiresAt: createdAt + ttlMs,
            });
            if (!row) throw new OrderIdTaken();
            bumpCount(input.shopId, "CREATED", 1);
            return row;
          },
          { behavior: "immediate" },
        );
    },

    /**
     * Applies a trigger of the state machine. `onlyFrom` narrows the states it may move from (a
     * sandbox outcome only decides a PENDING payment); `patch` adds the fields the move sets.
     * A move into a final status writes its outbox event in the same transaction, with the id of
     * the API request that caused it (`requestId`) when there is one.
     */
    transition(
      id: string,
      trigger: PaymentTrigger,
      now: number,
      opts: {
        onlyFrom?: readonly PaymentStatus[];
        /** A further condition on the row as it is inside the transaction (e.g. still the same provider session). */
        onlyIf?: (row: PaymentRow) => boolean;
        patch?: (row: PaymentRow) => Partial<NewPaymentRow>;
        requestId?: string;
      } = {},
    ): TransitionResult | undefined {
      const result = db.transaction(
        () => {
          const row = byIdQ.get({ id });
          if (!row) return undefined;
          let decision = decide(row.status, trigger);
          const excluded = (opts.onlyFrom && !opts.onlyFrom.includes(row.status)) || (opts.onlyIf && !opts.onlyIf(row));
          if (decision.kind === "move" && excluded) decision = { kind: "refused", status: row.status };
          if (decision.kind !== "move") return { decision, row };
          const final = isFinal(decision.to);
          const patch = opts.patch?.(row);
          const updated = patch
            ? db
                .update(p)
                .set({ ...patch, status: decision.to, updatedAt: now, ...(final ? { expiresAt: null } : {}) })
                .where(eq(p.id, id))
                .returning()
                .get()!
            : (final ? moveToFinalQ : moveToOpenQ).get({ id, to: decision.to, now })!;
          bumpCount(row.shopId, decision.from, -1);
          bumpCount(row.shopId, decision.to, 1);
          if (isFinal(updated.status)) {
            const event = toPaymentEvent({ ...updated, status: updated.status }, decision.from, now, opts.requestId);
            insertOutboxQ.run({
              eventId: paymentEventId(id, updated.status),
              paymentId: id,
              status: updated.status,
              payload: JSON.stringify(event),
              requestId: opts.requestId ?? null,
              createdAt: now,
            });
          }
          return { decision, row: updated };
        },
        { behavior: "immediate" },
      );
      if (result?.decision.kind === "move") onCommitted({ row: result.row, from: result.decision.from, to: result.decision.to, trigger, requestId: opts.requestId });
      return result;
    },

    /** List mode of §4.2, planned so that unfiltered and time-window pages never scan the shop. */
    list(shopId: string, query: ListPaymentsQuery): { items: PaymentRow[]; total: number } {
      return db.transaction(() => {
        const bounds: SeqBounds = { lastSeq: lastOfShopQ.get({ shopId })?.seq ?? 0 };
        if (query.from) bounds.fromSeq = firstAtOrAfterQ.get({ shopId, at: Date.parse(query.from) })?.seq ?? null;
        if (query.to) bounds.toSeq = lastAtOrBeforeQ.get({ shopId, at: Date.parse(query.to) })?.seq ?? null;
        const plan = planList(query, bounds);
        if (plan.kind === "empty") return { items: [], total: plan.total };
        if (plan.kind === "seqRange") return { items: seqRangeQ.all({ shopId, first: plan.first, last: plan.last }), total: plan.total };
        return statusWalk(shopId, plan);
      });
    },

    /** Keyset page in (createdAt, id) order for CSV export. */
    exportPage(shopId: string, f: ExportFilter): PaymentRow[] {
      return db
        .select()
        .from(p)
        .where(
          and(
            eq(p.shopId, shopId),
            f.fromMs === undefined ? undefined : gte(p.createdAt, f.fromMs),
            f.toMs === undefined ? undefined : lte(p.createdAt, f.toMs),
            f.statuses?.length ? inArray(p.status, f.statuses) : undefined,
            f.after ? sql`(${p.createdAt}, ${p.id}) > (${f.after.createdAt}, ${f.after.id})` : undefined,
          ),
        )
        .orderBy(asc(p.createdAt), asc(p.id))
        .limit(f.limit)
        .all();
    },

    /** Ids of CREATED and PENDING payments whose time is up, oldest deadline first. */
    dueForExpiry: (now: number, limit: number): string[] => dueQ.all({ now, limit }).map((r) => r.id),
  };
}

export type PaymentsRepo = ReturnType<typeof createPaymentsRepo>;
