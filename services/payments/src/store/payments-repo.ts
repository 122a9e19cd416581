import { and, asc, desc, eq, gte, inArray, lte, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/sqlite-core";
import type { DailyStatsRow, FinalStatus, ListPaymentsQuery, PaymentStatus, StatusTotal } from "@payaccept/contracts";
import { type Store } from "@payaccept/platform";
import { moscowDay, moscowDayEnd, moscowDayStart } from "@payaccept/domain";
import { planList, type ListPlan, type SeqBounds } from "../domain/list-plan.ts";
import { keyStatements } from "./idempotency-keys-repo.ts";
import { OrderIdTaken, type KeyedCreate, type KeyedInsert, type BrowseFilter, type CommittedTransition, type ExportFilter, type NewPayment, type TransitionOptions, type TransitionResult } from "./payments-store.ts";
import { announces, isFinal, type PaymentTrigger } from "../domain/state-machine.ts";
import {
  chargeClaimable,
  chargeDue,
  countersOf,
  countersTotal,
  countUpsert,
  createdAtOrAfter,
  createdAtOrBefore,
  dailyRefundsCells,
  dailyStatsCells,
  dailyUpsert,
  expired,
  exportConditions,
  exportOrder,
  finalEventIds,
  onlyFinal,
  refundsDayUpsert,
  rollupConditions,
  rowCount,
  seqRange,
  seqsOf,
  statusTotals,
  shopsDays,
  stillAuthorized,
} from "./conditions.ts";
import { dailyCell, decideFor, insertedState, inSeqOrder, movedFields, nextOfShop, paymentEventRow, seqsOfPage, seqWindowOf, toDailyStatsRow } from "./rows.ts";
import { dailyRefunds, dailyStats, outbox, payments as p, savedMethods, statusCounts, type schema } from "./schema.sqlite.ts";
import type { PaymentRow } from "./schema.ts";

export type SqliteStore = Store<typeof schema>;

/** Up to this many payments in the period, sorting them by amount beats walking the shop's amount index. */
const SORT_WINDOW_MAX = 20_000;

const ph = sql.placeholder;

/**
 * All reads and writes of payments.db. Every write runs in one IMMEDIATE transaction, so the status,
 * the per-status counters and the outbox row change together or not at all, also with several
 * processes on the same file. `onCommitted` runs after the commit of every status change.
 */
export function createPaymentsRepo(store: SqliteStore, onCommitted: (t: CommittedTransition) => void) {
  const { db } = store;
  const keys = keyStatements(store);

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
      status: ph("status"),
      amountKopecks: ph("amountKopecks"),
      commissionKopecks: ph("commissionKopecks"),
      description: ph("description"),
      email: ph("email"),
      method: ph("method"),
      methodFixed: ph("methodFixed"),
      telegramId: ph("telegramId"),
      metadata: ph("metadata"),
      receipt: ph("receipt"),
      createCallId: ph("createCallId"),
      successUrl: ph("successUrl"),
      failUrl: ph("failUrl"),
      isTest: ph("isTest"),
      createdAt: ph("createdAt"),
      updatedAt: ph("createdAt"),
      expiresAt: ph("expiresAt"),
      chargeRetryAt: ph("chargeRetryAt"),
      customerId: ph("customerId"),
      saveMethod: ph("saveMethod"),
      hold: ph("hold"),
      heldKopecks: ph("heldKopecks"),
      savedMethodId: ph("savedMethodId"),
      paymentMethod: ph("paymentMethod"),
      merchantInitiated: ph("merchantInitiated"),
      traceContext: ph("traceContext"),
    })
    // The UNIQUE index (shop_id, order_id) decides a taken order id: no row comes back.
    .onConflictDoNothing({ target: [p.shopId, p.orderId] })
    .returning()
    .prepare();
  const bumpCountQ = db
    .insert(statusCounts)
    .values({ shopId: ph("shopId"), status: ph("status"), count: ph("delta") })
    .onConflictDoUpdate(countUpsert(statusCounts))
    .prepare();
  const firstAtOrAfterQ = db
    .select({ seq: p.seq })
    .from(p)
    .where(createdAtOrAfter(p, ph("shopId"), ph("at")))
    .orderBy(asc(p.createdAt), asc(p.id))
    .limit(1)
    .prepare();
  const lastAtOrBeforeQ = db
    .select({ seq: p.seq })
    .from(p)
    .where(createdAtOrBefore(p, ph("shopId"), ph("at")))
    .orderBy(desc(p.createdAt), desc(p.id))
    .limit(1)
    .prepare();
  const seqRangeQ = db
    .select()
    .from(p)
    .where(seqRange(p, ph("shopId"), ph("first"), ph("last")))
    .orderBy(asc(p.seq))
    .prepare();
  const dueQ = db
    .select({ id: p.id })
    .from(p)
    .where(expired(p, ph("now")))
    .orderBy(asc(p.expiresAt))
    .limit(ph("limit"))
    .prepare();
  const dueChargesQ = db
    .select({ id: p.id })
    .from(p)
    .where(chargeDue(p, ph("now")))
    .orderBy(asc(p.chargeRetryAt))
    .limit(ph("limit"))
    .prepare();
  const claimChargeQ = db
    .update(p)
    .set({ chargeRetryAt: sql`${ph("until")}` })
    .where(chargeClaimable(p, ph("id"), ph("now")))
    .returning()
    .prepare();

  // A status change without extra fields (cancel, expire, refund: most of them) and its outbox row,
  // prepared once: built per call they cost a SQL build and a SQLite prepare each time.
  const moveQ = (final: boolean) =>
    db
      .update(p)
      .set({ status: sql`${ph("to")}`, updatedAt: sql`${ph("now")}`, ...(final ? { expiresAt: null, chargeRetryAt: null } : {}) })
      .where(eq(p.id, ph("id")))
      .returning()
      .prepare();
  const moveToFinalQ = moveQ(true);
  const moveToOpenQ = moveQ(false);
  const insertOutboxQ = db
    .insert(outbox)
    .values({ eventId: ph("eventId"), paymentId: ph("paymentId"), status: ph("status"), payload: ph("payload"), requestId: ph("requestId"), traceContext: ph("traceContext"), createdAt: ph("createdAt") })
    .prepare();

  const bumpCount = (shopId: string, status: PaymentStatus, delta: number) => bumpCountQ.run({ shopId, status, delta });

  const bumpDailyQ = db
    .insert(dailyStats)
    .values({ shopId: ph("shopId"), day: ph("day"), method: ph("method"), status: ph("status"), count: ph("delta"), sumKopecks: ph("sum") })
    .onConflictDoUpdate(dailyUpsert(dailyStats))
    .prepare();
  const bumpRefundsQ = db
    .insert(dailyRefunds)
    .values({ shopId: ph("shopId"), day: ph("day"), count: 1, sumKopecks: ph("sum") })
    .onConflictDoUpdate(refundsDayUpsert(dailyRefunds))
    .prepare();

  /** The payment's cell of the daily rollup gains (+1) or loses (−1) it. */
  const bumpDaily = (row: PaymentRow, sign: 1 | -1) => bumpDailyQ.run(dailyCell(row, sign));

  /**
   * The seqs of a status-filtered page: one covering scan of (shop, status, seq) per status, merged
   * in seq order by SQLite (MERGE UNION ALL), so the walk to the offset touches index entries only.
   */
  function statusSeqs(shopId: string, statuses: PaymentStatus[], first: number, last: number, page: { offset: number; limit: number }, descending = false): number[] {
    const range = (status: PaymentStatus) => and(eq(p.shopId, shopId), eq(p.status, status), gte(p.seq, first), lte(p.seq, last));
    const [head, second, ...rest] = statuses.map((status) => db.select({ seq: p.seq }).from(p).where(range(status)));
    const merged = second ? unionAll(head!, second, ...rest) : head!;
    return merged.orderBy(descending ? sql`seq desc` : sql`seq`).limit(page.limit).offset(page.offset).all().map((r) => r.seq);
  }

  /** Rows of the shop by seq, in the order of `seqs`. */
  function rowsBySeq(shopId: string, seqs: number[]): PaymentRow[] {
    if (seqs.length === 0) return [];
    return inSeqOrder(db.select().from(p).where(seqsOf(p, shopId, seqs)).all(), seqs);
  }

  function statusWalk(shopId: string, plan: Extract<ListPlan, { kind: "statusWalk" }>): { items: PaymentRow[]; total: number } {
    const items = rowsBySeq(shopId, statusSeqs(shopId, plan.statuses, plan.first, plan.last, plan));
    const total =
      plan.total === "counters"
        ? (db.select(countersTotal(statusCounts)).from(statusCounts).where(countersOf(statusCounts, shopId, plan.statuses)).get()?.n ?? 0)
        : plan.statuses.reduce(
            (sum, status) => sum + (db.select(rowCount()).from(p).where(and(eq(p.shopId, shopId), eq(p.status, status), gte(p.seq, plan.first), lte(p.seq, plan.last))).get()?.n ?? 0),
            0,
          );
    return { items, total };
  }

  /** The seq range [first, last] of payments created within the instants (undefined: open side); null when empty. */
  function seqWindow(shopId: string, fromMs?: number, toMs?: number): { first: number; last: number } | null {
    const bounds: SeqBounds = { lastSeq: lastOfShopQ.get({ shopId })?.seq ?? 0 };
    if (fromMs !== undefined) bounds.fromSeq = firstAtOrAfterQ.get({ shopId, at: fromMs })?.seq ?? null;
    if (toMs !== undefined) bounds.toSeq = lastAtOrBeforeQ.get({ shopId, at: toMs })?.seq ?? null;
    return seqWindowOf(bounds);
  }

  /** A page of the dashboard's list in its order: by seq (= creation time) as a range or a status walk, by amount along its index. */
  function browseSeqs(shopId: string, f: BrowseFilter, window: { first: number; last: number }): number[] {
    const { first, last } = window;
    const offset = (f.page - 1) * f.limit;
    const descending = f.sort.endsWith("_desc");
    if (f.sort.startsWith("amount")) {
      const dir = descending ? desc : asc;
      // A small window is read by seq and sorted; a large one is walked in amount order along
      // (shop, amount, seq, status), checking seq and status on the index entries (the unary `+`
      // keeps SQLite from choosing another index and sorting the whole window for one page).
      const small = last - first + 1 <= SORT_WINDOW_MAX;
      const seq = small ? sql`${p.seq}` : sql`+${p.seq}`;
      return db
        .select({ seq: p.seq })
        .from(p)
        .where(and(eq(p.shopId, shopId), gte(seq, first), lte(seq, last), f.statuses?.length ? inArray(sql`+${p.status}`, f.statuses) : undefined))
        .orderBy(dir(p.amountKopecks), dir(p.seq))
        .limit(f.limit)
        .offset(offset)
        .all()
        .map((r) => r.seq);
    }
    if (f.statuses?.length) return statusSeqs(shopId, f.statuses, first, last, { offset, limit: f.limit }, descending);
    return seqsOfPage(window, offset, f.limit, descending);
  }

  /** Count and amount of the filtered set, from the daily rollup: the filter is whole Moscow days. */
  function rollupTotals(shopId: string, f: Pick<BrowseFilter, "fromDay" | "toDay" | "statuses">): StatusTotal[] {
    return db
      .select(statusTotals(dailyStats))
      .from(dailyStats)
      .where(rollupConditions(dailyStats, shopId, f))
      .groupBy(dailyStats.status)
      .having(sql`sum(${dailyStats.count}) <> 0`)
      .orderBy(dailyStats.status)
      .all();
  }

  /** The insert itself, inside the caller's transaction. */
  function insertRow(input: NewPayment, now: number, ttlMs: number): PaymentRow {
    const next = nextOfShop(lastOfShopQ.get({ shopId: input.shopId }), now);
    const state = insertedState(input, next.createdAt, ttlMs);
    const row = insertQ.get({
      ...input,
      receipt: input.receipt ?? null,
      createCallId: input.createCallId ?? null,
      customerId: input.customerId ?? null,
      saveMethod: input.saveMethod ?? false,
      hold: input.hold ?? false,
      heldKopecks: input.heldKopecks ?? null,
      savedMethodId: input.savedMethodId ?? null,
      paymentMethod: input.paymentMethod ?? null,
      merchantInitiated: input.merchantInitiated ?? false,
      traceContext: input.traceContext ?? null,
      methodFixed: input.method != null,
      ...next,
      ...state,
    });
    if (!row) throw new OrderIdTaken();
    bumpCount(input.shopId, state.status, 1);
    bumpDaily(row, 1);
    return row;
  }

  return {
    byId: (id: string): PaymentRow | undefined => byIdQ.get({ id }),
    byOrderId: (shopId: string, orderId: string): PaymentRow | undefined => byOrderIdQ.get({ shopId, orderId }),

    /** Inserts a CREATED payment expiring at createdAt + ttlMs; throws OrderIdTaken. */
    insert: (input: NewPayment, now: number, ttlMs: number): PaymentRow => db.transaction(() => insertRow(input, now, ttlMs), { behavior: "immediate" }),

    /** insert() under an Idempotency-Key: the key's live row, or the payment and the key's row with its answer in one transaction. */
    insertKeyed(input: NewPayment, now: number, ttlMs: number, keyed: KeyedCreate): KeyedInsert {
      return db.transaction(
        () => {
          const existing = keys.live(input.shopId, keyed.key, now);
          if (existing) return { kind: "existing", key: existing };
          const row = insertRow(input, now, ttlMs);
          const body = keyed.answer(row);
          keys.put({ shopId: input.shopId, key: keyed.key, fingerprint: keyed.fingerprint, status: keyed.status, body, callId: keyed.callId, createdAt: now });
          return { kind: "created", row, body };
        },
        { behavior: "immediate" },
      );
    },

    /**
     * Applies a trigger of the state machine (`sandbox`: a tester's chosen outcome, see decide);
     * `patch` adds the fields the move sets.
     * A move into a final status writes its outbox event in the same transaction, with the id of
     * the API request that caused it (`requestId`) when there is one.
     */
    transition(
      id: string,
      trigger: PaymentTrigger,
      now: number,
      opts: TransitionOptions = {},
    ): TransitionResult | undefined {
      const result = db.transaction(
        () => {
          const row = byIdQ.get({ id });
          if (!row) return undefined;
          const decision = decideFor(row, trigger, opts);
          if (decision.kind !== "move") return { decision, row };
          const final = isFinal(decision.to);
          const patch = opts.patch?.(row);
          if (opts.savedMethod) db.insert(savedMethods).values(opts.savedMethod).onConflictDoNothing().run();
          const updated = patch
            ? db.update(p).set(movedFields(decision.to, now, patch)).where(eq(p.id, id)).returning().get()!
            : (final ? moveToFinalQ : moveToOpenQ).get({ id, to: decision.to, now })!;
          bumpCount(row.shopId, decision.from, -1);
          bumpCount(row.shopId, decision.to, 1);
          bumpDaily(row, -1);
          bumpDaily(updated, 1);
          if (announces(decision)) insertOutboxQ.run(paymentEventRow(updated, decision.from, now, opts.requestId, opts.trace));
          return { decision, row: updated };
        },
        { behavior: "immediate" },
      );
      if (result?.decision.kind === "move") onCommitted({ row: result.row, from: result.decision.from, to: result.decision.to, trigger, requestId: opts.requestId });
      return result;
    },

    /** The dashboard's list: a sorted page and the count and sum of the whole filtered set, read together. */
    browse(shopId: string, f: BrowseFilter): { items: PaymentRow[]; byStatus: StatusTotal[] } {
      return db.transaction(() => {
        const window = seqWindow(shopId, f.fromDay ? moscowDayStart(f.fromDay) : undefined, f.toDay ? moscowDayEnd(f.toDay) : undefined);
        const items = window ? rowsBySeq(shopId, browseSeqs(shopId, f, window)) : [];
        return { items, byStatus: rollupTotals(shopId, f) };
      });
    },

    /** Counts a SUCCEEDED refund on its Moscow day; called inside the transaction that ends it. */
    countRefund(shopId: string, at: number, amountKopecks: number): void {
      bumpRefundsQ.run({ shopId, day: moscowDay(at), sum: amountKopecks });
    },

    /** SUCCEEDED refunds of the shops per Moscow day of [fromDay, toDay], summed over the shops. */
    dailyRefunds(shopIds: string[], fromDay: string, toDay: string): { day: string; count: number; sumKopecks: number }[] {
      return db
        .select(dailyRefundsCells(dailyRefunds))
        .from(dailyRefunds)
        .where(shopsDays(dailyRefunds, shopIds, fromDay, toDay))
        .groupBy(dailyRefunds.day)
        .orderBy(dailyRefunds.day)
        .all();
    },

    /** The daily rollup of the shops over Moscow days [fromDay, toDay], summed over the shops; empty cells left out. */
    dailyStats(shopIds: string[], fromDay: string, toDay: string): DailyStatsRow[] {
      const cells = dailyStatsCells(dailyStats);
      return db
        .select(cells.fields)
        .from(dailyStats)
        .where(shopsDays(dailyStats, shopIds, fromDay, toDay))
        .groupBy(...cells.group)
        .having(cells.nonEmpty)
        .orderBy(...cells.group)
        .all()
        .map(toDailyStatsRow);
    },

    /** When the payment reached each final status: its events in the outbox (kept, and unique per status). */
    finalEvents(id: string): { status: FinalStatus; at: number }[] {
      return db
        .select({ status: outbox.status, at: outbox.createdAt })
        .from(outbox)
        .where(finalEventIds(outbox, id))
        .orderBy(asc(outbox.seq))
        .all()
        .filter(onlyFinal);
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
        .where(exportConditions(p, shopId, f))
        .orderBy(...exportOrder(p))
        .limit(f.limit)
        .all();
    },

    /** Ids of CREATED, PENDING and AUTHORIZED payments whose time is up, oldest deadline first. */
    dueForExpiry: (now: number, limit: number): string[] => dueQ.all({ now, limit }).map((r) => r.id),

    /** Ids of PENDING live charges whose driver's lease has run out, oldest first. */
    dueCharges: (now: number, limit: number): string[] => dueChargesQ.all({ now, limit }).map((r) => r.id),

    /** Takes a due PENDING charge for leaseMs; undefined when it is not due or no longer PENDING. */
    claimCharge: (id: string, now: number, leaseMs: number): PaymentRow | undefined => claimChargeQ.get({ id, now, until: now + leaseMs }),

    /** Keeps the lines of a partial capture on the payment while it is AUTHORIZED. */
    keepCaptureReceipt(id: string, receipt: NonNullable<PaymentRow["captureReceipt"]>): void {
      db.update(p).set({ captureReceipt: receipt }).where(stillAuthorized(p, id)).run();
    },
  };
}

export type SqlitePaymentsRepo = ReturnType<typeof createPaymentsRepo>;
