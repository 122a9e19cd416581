import { join } from "node:path";
import { and, eq, gte, lte, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/sqlite-core";
import { IDEMPOTENCY_TTL_MS, type DailyStatsRow, type FinalStatus, type ListPaymentsQuery, type PaymentStatus, type StatusTotal } from "@payaccept/contracts";
import { Batcher, GroupCommit, openStore, placeholders, sqliteDb, type Store } from "@payaccept/platform";
import { moscowDay, moscowDayEnd, moscowDayStart } from "@payaccept/domain";
import { planList, type ListPlan, type SeqBounds } from "../domain/list-plan.ts";
import { refundAmount } from "../domain/refund-rules.ts";
import { announces, fullyRefunded, refundHasEnded, type PaymentTrigger } from "../domain/state-machine.ts";
import { OrderIdTaken, type BrowseFilter, type CommittedTransition, type EndedMethod, type EndedRefund, type ExportFilter, type IdempotencyKeyRow, type IdempotencyKeysRepo, type KeyedCreate, type KeyedInsert, type MethodEnd, type NewPayment, type OutboxRepo, type OutboxRow, type PaymentRow, type PaymentsRepo, type PaymentsStore, type RefundOutcome, type RefundRequest, type RefundRow, type RefundsRepo, type SavedMethodRow, type SavedMethodsRepo, type StoreHooks, type TransitionOptions, type TransitionResult } from "./payments-store.ts";
import { onlyFinal, paymentsStatements } from "./payments-terms.ts";
import { dailyCell, decideFor, endedRefund, insertedRow, insertedState, inSeqOrder, rollupRows, methodEndedFields, methodEventStatus, movedFields, newRefundRow, nextOfShop, paymentEventRow, refundEventRow, seqsOfPage, seqWindowOf, succeededKopecks, toDailyStatsRow, withTrace } from "./rows.ts";
import { payments as p, schema } from "./schema.sqlite.ts";

const MIGRATIONS = join(import.meta.dir, "../../drizzle");

export type SqliteStore = Store<typeof schema>;

/** payments.db at `path`, migrated, for the SQLite repositories themselves (their tests, the benches' seeding). */
export const openPaymentsFile = (path: string): SqliteStore => openStore(path, schema, MIGRATIONS);

/** A create as the batch of its turn writes it. */
type CreateWrite = { input: NewPayment; now: number; ttlMs: number; keyed?: KeyedCreate };
/** What a create's caller gets of its outcome in the batch: a taken orderId is thrown. */
function createdBy<T extends PaymentRow | KeyedInsert>(outcome: PaymentRow | KeyedInsert | OrderIdTaken): T {
  if (outcome instanceof OrderIdTaken) throw outcome;
  return outcome as T;
}
/** Creates written in one transaction at most (the rest of a turn's go in the next). */
const CREATE_BATCH_MAX = 256;

/** Up to this many payments in the period, sorting them by amount beats walking the shop's amount index. */
const SORT_WINDOW_MAX = 20_000;

const ph = sql.placeholder;

/** The shared statements on the file: most of them prepared once here (a statement built per call costs a SQL build and a SQLite prepare). */
const statementsOf = ({ db }: SqliteStore) => paymentsStatements(sqliteDb(db), schema);

/** One IMMEDIATE transaction: its body runs to COMMIT without awaiting, so no other statement of this process can land inside it. */
const immediate = <T>({ db }: SqliteStore, fn: () => T): T => db.transaction(fn, { behavior: "immediate" });

/** The statements of payments.db's idempotency_keys, shared by the keyed insert and the keys' repository. */
function keyStatements(store: SqliteStore) {
  const q = statementsOf(store);
  const liveQ = q.liveKey(ph("shopId"), ph("key"), ph("cutoff")).prepare();
  const putQ = q.putKeys(placeholders("shopId", "key", "fingerprint", "status", "body", "callId", "createdAt"), ph("cutoff")).prepare();
  return {
    /** The key's live row, read at `now`. */
    live: (shopId: string, key: string, now: number): IdempotencyKeyRow | undefined => liveQ.get({ shopId, key, cutoff: now - IDEMPOTENCY_TTL_MS }),
    /** Writes the row unless a live one is there; whether it did. */
    put: (row: IdempotencyKeyRow): boolean => putQ.get({ ...row, cutoff: row.createdAt - IDEMPOTENCY_TTL_MS }) !== undefined,
  };
}

/**
 * All reads and writes of payments.db's payments. Every write runs in one IMMEDIATE transaction, so the status,
 * the per-status counters and the outbox row change together or not at all, also with several
 * processes on the same file. `onCommitted` runs after the commit of every status change.
 */
export function createPaymentsRepo(store: SqliteStore, onCommitted: (t: CommittedTransition) => void) {
  const { db } = store;
  const q = statementsOf(store);
  const keys = keyStatements(store);

  const byIdQ = q.paymentById(ph("id")).prepare();
  const byOrderIdQ = q.paymentByOrderId(ph("shopId"), ph("orderId")).prepare();
  const lastOfShopQ = q.lastOfShop(ph("shopId")).prepare();
  const insertQ = q
    .insertPayment({
      ...placeholders(
        "id", "shopId", "accountId", "seq", "orderId", "status", "amountKopecks", "commissionKopecks", "description", "email", "method", "methodFixed", "telegramId", "metadata",
        "receipt", "createCallId", "successUrl", "failUrl", "isTest", "createdAt", "expiresAt", "chargeRetryAt", "customerId", "saveMethod", "hold", "heldKopecks", "savedMethodId",
        "paymentMethod", "merchantInitiated", "traceContext",
      ),
      updatedAt: ph("createdAt"),
    })
    .prepare();
  const bumpCountQ = q.bumpCounts({ shopId: ph("shopId"), status: ph("status"), count: ph("delta") }).prepare();
  const bumpDailyQ = q.bumpDaily({ shopId: ph("shopId"), day: ph("day"), method: ph("method"), status: ph("status"), count: ph("delta"), sumKopecks: ph("sum") }).prepare();
  const bumpRefundsQ = q.countRefund(ph("shopId"), ph("day"), ph("sum")).prepare();
  const firstAtOrAfterQ = q.firstSeqFrom(ph("shopId"), ph("at")).prepare();
  const lastAtOrBeforeQ = q.lastSeqTo(ph("shopId"), ph("at")).prepare();
  const seqRangeQ = q.seqRangeRows(ph("shopId"), ph("first"), ph("last")).prepare();
  const dueQ = q.dueForExpiry(ph("now"), ph("limit")).prepare();
  const dueChargesQ = q.dueCharges(ph("now"), ph("limit")).prepare();
  const claimChargeQ = q.claimCharge(ph("id"), ph("now"), ph("until")).prepare();
  const insertOutboxQ = q.insertEvents(placeholders("eventId", "paymentId", "status", "payload", "requestId", "traceContext", "createdAt")).prepare();

  // A move is one UPDATE per payment here (PostgreSQL writes a batch's moves as one UPDATE … FROM
  // (VALUES …) instead, updateRows), without RETURNING on both: the row moved is the row read in
  // the transaction with the fields set (no trigger or default sets a column on update), which
  // spares SQLite a row to produce and drizzle 45 columns to map. A move without extra fields
  // (cancel, expire, refund: most of them) is prepared once; one with them (a payment's start, its
  // pay, a charge's outcome) once per set of fields it sets: building and preparing it per call
  // would cost more than running it.
  const movesByFields = new Map<string, ReturnType<typeof moveSetting>>();
  const moveSetting = (columns: string[]) =>
    db
      .update(p)
      .set(Object.fromEntries(columns.map((c) => [c, ph(c)])))
      .where(eq(p.id, ph("id")))
      .prepare();
  // Keyed by the columns in the order the caller's patch names them, unsorted: the same set named
  // in another order prepares a statement of its own, and the orders are the few the callers write.
  const move = (row: PaymentRow, fields: ReturnType<typeof movedFields>): PaymentRow => {
    const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    const columns = Object.keys(set);
    const key = columns.join(",");
    let q = movesByFields.get(key);
    if (!q) movesByFields.set(key, (q = moveSetting(columns)));
    q.run({ ...set, id: row.id });
    return { ...row, ...set };
  };

  const bumpCount = (shopId: string, status: PaymentStatus, delta: number) => bumpCountQ.run({ shopId, status, delta });
  // A transition's rollups: its status's counter and daily cell lose the payment, the new ones
  // gain it, each table in one statement of two rows.
  const moveCountsQ = q.bumpCounts([{ shopId: ph("shopId"), status: ph("from"), count: -1 }, { shopId: ph("shopId"), status: ph("to"), count: 1 }]).prepare();
  const cellQ = (k: string) => ({ shopId: ph(`${k}shopId`), day: ph(`${k}day`), method: ph(`${k}method`), status: ph(`${k}status`), count: ph(`${k}delta`), sumKopecks: ph(`${k}sum`) });
  const moveDailyQ = q.bumpDaily([cellQ("a"), cellQ("b")]).prepare();
  const prefixed = (k: string, cell: ReturnType<typeof dailyCell>) => Object.fromEntries(Object.entries(cell).map(([name, v]) => [k + name, v]));

  /**
   * The seqs of a status-filtered page: one covering scan of (shop, status, seq) per status, merged
   * in seq order by SQLite (MERGE UNION ALL), so the walk to the offset touches index entries only.
   * SQLite's own plan: PostgreSQL walks the same index for all the statuses at once.
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
    return inSeqOrder(q.rowsOfSeqs(shopId, seqs).all(), seqs);
  }

  function statusWalk(shopId: string, plan: Extract<ListPlan, { kind: "statusWalk" }>): { items: PaymentRow[]; total: number } {
    const items = rowsBySeq(shopId, statusSeqs(shopId, plan.statuses, plan.first, plan.last, plan));
    // Counted status by status: each one range of the (shop, status, seq) index.
    const total =
      plan.total === "counters"
        ? (q.countersTotal(shopId, plan.statuses).get()?.n ?? 0)
        : plan.statuses.reduce((sum, status) => sum + (q.countInStatuses(shopId, [status], plan.first, plan.last).get()?.n ?? 0), 0);
    return { items, total };
  }

  /** The seq bounds of payments created within the instants (undefined: open side). */
  function seqBounds(shopId: string, fromMs?: number, toMs?: number): SeqBounds {
    const bounds: SeqBounds = { lastSeq: lastOfShopQ.get({ shopId })?.seq ?? 0 };
    if (fromMs !== undefined) bounds.fromSeq = firstAtOrAfterQ.get({ shopId, at: fromMs })?.seq ?? null;
    if (toMs !== undefined) bounds.toSeq = lastAtOrBeforeQ.get({ shopId, at: toMs })?.seq ?? null;
    return bounds;
  }

  /** A page of the dashboard's list in its order: by seq (= creation time) as a range or a status walk, by amount along its index. */
  function browseSeqs(shopId: string, f: BrowseFilter, window: { first: number; last: number }): number[] {
    const offset = (f.page - 1) * f.limit;
    const descending = f.sort.endsWith("_desc");
    if (f.sort.startsWith("amount")) {
      // A small window is read by seq and sorted; a large one is walked in amount order along
      // (shop, amount, seq, status), checking seq and status on the index entries (the unary `+`
      // keeps SQLite from choosing another index and sorting the whole window for one page).
      const small = window.last - window.first + 1 <= SORT_WINDOW_MAX;
      const page = { statuses: f.statuses, descending, offset, limit: f.limit };
      return q
        .amountPage(shopId, window, page, small ? sql`${p.seq}` : sql`+${p.seq}`, sql`+${p.status}`)
        .all()
        .map((r) => r.seq);
    }
    if (f.statuses?.length) return statusSeqs(shopId, f.statuses, window.first, window.last, { offset, limit: f.limit }, descending);
    return seqsOfPage(window, offset, f.limit, descending);
  }

  /** The row a create inserts as the shop's `next` payment. */
  function newRow(input: NewPayment, next: { id: string; seq: number; createdAt: number }, ttlMs: number): PaymentRow {
    return insertedRow({
      shopId: input.shopId,
      accountId: input.accountId,
      orderId: input.orderId,
      amountKopecks: input.amountKopecks,
      commissionKopecks: input.commissionKopecks,
      description: input.description ?? null,
      email: input.email ?? null,
      method: input.method ?? null,
      methodFixed: input.method != null,
      telegramId: input.telegramId ?? null,
      metadata: input.metadata ?? null,
      successUrl: input.successUrl ?? null,
      failUrl: input.failUrl ?? null,
      isTest: input.isTest,
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
      ...next,
      ...insertedState(input, next.createdAt, ttlMs),
    });
  }

  /**
   * The creates of a batch in one IMMEDIATE transaction, without a savepoint each: a taken orderId
   * writes nothing (its create's outcome is OrderIdTaken and the next create of its shop takes its
   * seq), a key with a live row writes nothing either (its twin earlier in the batch included), and
   * any other failure undoes the whole batch. Each shop's last payment is read once, and the
   * counters and the daily rollup are written once per cell the batch changes.
   */
  function insertMany(writes: CreateWrite[]): (PaymentRow | KeyedInsert | OrderIdTaken)[] {
    return immediate(store, () => {
      const last = new Map<string, { seq: number; createdAt: number; id: string } | undefined>();
      const cells: ReturnType<typeof dailyCell>[] = [];
      const outcomes = writes.map(({ input, now, ttlMs, keyed }) => {
        if (keyed) {
          const existing = keys.live(input.shopId, keyed.key, now);
          if (existing) return { kind: "existing", key: existing } as const;
        }
        const before = last.has(input.shopId) ? last.get(input.shopId) : lastOfShopQ.get({ shopId: input.shopId });
        const row = newRow(input, nextOfShop(before, now), ttlMs);
        if ((insertQ.run(row) as { changes: number }).changes === 0) {
          last.set(input.shopId, before);
          return new OrderIdTaken();
        }
        last.set(input.shopId, row);
        cells.push(dailyCell(row, 1));
        if (!keyed) return row;
        const body = keyed.answer(row);
        keys.put({ shopId: input.shopId, key: keyed.key, fingerprint: keyed.fingerprint, status: keyed.status, body, callId: keyed.callId, createdAt: now });
        return { kind: "created", row, body } as const;
      });
      const { counts, daily } = rollupRows(cells);
      for (const c of counts) bumpCount(c.shopId, c.status, c.count);
      for (const d of daily) bumpDailyQ.run({ shopId: d.shopId, day: d.day, method: d.method, status: d.status, delta: d.count, sum: d.sumKopecks });
      return outcomes;
    });
  }

  return {
    byId: (id: string): PaymentRow | undefined => byIdQ.get({ id }),
    byOrderId: (shopId: string, orderId: string): PaymentRow | undefined => byOrderIdQ.get({ shopId, orderId }),

    // A create alone is the batch of one: the creates have one code path, the one the service runs.
    insert: (input: NewPayment, now: number, ttlMs: number): PaymentRow => createdBy<PaymentRow>(insertMany([{ input, now, ttlMs }])[0]!),
    insertKeyed: (input: NewPayment, now: number, ttlMs: number, keyed: KeyedCreate): KeyedInsert => createdBy<KeyedInsert>(insertMany([{ input, now, ttlMs, keyed }])[0]!),
    insertMany,

    /** The row is read inside the IMMEDIATE transaction, which already holds the file's write lock. */
    transition(id: string, trigger: PaymentTrigger, now: number, opts: TransitionOptions = {}): TransitionResult | undefined {
      const result = immediate(store, (): TransitionResult | undefined => {
        const row = byIdQ.get({ id });
        if (!row) return undefined;
        const decision = decideFor(row, trigger, opts);
        if (decision.kind !== "move") return { decision, row };
        const patch = opts.patch?.(row);
        if (opts.savedMethod) q.insertMethods(opts.savedMethod).run();
        const updated = move(row, movedFields(decision.to, now, patch));
        moveCountsQ.run({ shopId: row.shopId, from: decision.from, to: decision.to });
        moveDailyQ.run({ ...prefixed("a", dailyCell(row, -1)), ...prefixed("b", dailyCell(updated, 1)) });
        if (announces(decision)) insertOutboxQ.run(paymentEventRow(updated, decision.from, now, opts.requestId, opts.trace));
        return { decision, row: updated };
      });
      if (result?.decision.kind === "move") onCommitted({ row: result.row, from: result.decision.from, to: result.decision.to, trigger, requestId: opts.requestId });
      return result;
    },

    /** The page and the totals are read in one transaction: one snapshot. */
    browse(shopId: string, f: BrowseFilter): { items: PaymentRow[]; byStatus: StatusTotal[] } {
      return db.transaction(() => {
        const window = seqWindowOf(seqBounds(shopId, f.fromDay ? moscowDayStart(f.fromDay) : undefined, f.toDay ? moscowDayEnd(f.toDay) : undefined));
        const items = window ? rowsBySeq(shopId, browseSeqs(shopId, f, window)) : [];
        return { items, byStatus: q.rollupTotals(shopId, f).all() };
      });
    },

    /** Counts a SUCCEEDED refund on its Moscow day; called inside the transaction that ends it. */
    countRefund(shopId: string, at: number, amountKopecks: number): void {
      bumpRefundsQ.run({ shopId, day: moscowDay(at), sum: amountKopecks });
    },

    dailyRefunds: (shopIds: string[], fromDay: string, toDay: string): { day: string; count: number; sumKopecks: number }[] => q.dailyRefunds(shopIds, fromDay, toDay).all(),
    dailyStats: (shopIds: string[], fromDay: string, toDay: string): DailyStatsRow[] => q.dailyStats(shopIds, fromDay, toDay).all().map(toDailyStatsRow),
    finalEvents: (id: string): { status: FinalStatus; at: number }[] => q.finalEvents(id).all().filter(onlyFinal),

    list(shopId: string, query: ListPaymentsQuery): { items: PaymentRow[]; total: number } {
      return db.transaction(() => {
        const plan = planList(query, seqBounds(shopId, query.from ? Date.parse(query.from) : undefined, query.to ? Date.parse(query.to) : undefined));
        if (plan.kind === "empty") return { items: [], total: plan.total };
        if (plan.kind === "seqRange") return { items: seqRangeQ.all({ shopId, first: plan.first, last: plan.last }), total: plan.total };
        return statusWalk(shopId, plan);
      });
    },

    exportPage: (shopId: string, f: ExportFilter): PaymentRow[] => q.exportPage(shopId, f).all(),
    dueForExpiry: (now: number, limit: number): string[] => dueQ.all({ now, limit }).map((r) => r.id),
    dueCharges: (now: number, limit: number): string[] => dueChargesQ.all({ now, limit }).map((r) => r.id),
    reconcileDue: (before: number, limit: number, shopId?: string): PaymentRow[] => q.reconcileDue(before, limit, shopId).all(),
    claimCharge: (id: string, now: number, leaseMs: number): PaymentRow | undefined => claimChargeQ.get({ id, now, until: now + leaseMs }),
    keepCaptureReceipt(id: string, receipt: NonNullable<PaymentRow["captureReceipt"]>): void {
      q.keepCaptureReceipt(id, receipt).run();
    },
  };
}

export type SqlitePaymentsRepo = ReturnType<typeof createPaymentsRepo>;

/**
 * The refunds of payments.db. Opening and ending a refund are each one IMMEDIATE transaction that
 * also moves the payment's refunded/refunding sums (guarded by a trigger) and, on the end, writes
 * the RefundEvent and, when the payment is now fully refunded, its SUCCESS → REFUNDED transition
 * with the PaymentEvent. `onEnded` runs after the commit of every end.
 */
export function createRefundsRepo(store: SqliteStore, payments: SqlitePaymentsRepo, onEnded: (e: EndedRefund) => void) {
  const q = statementsOf(store);
  const byIdQ = q.refundById(ph("id")).prepare();
  const byKeyQ = q.refundByKey(ph("paymentId"), ph("key")).prepare();
  const ofPaymentQ = q.refundsOf(ph("paymentId")).prepare();
  const takenQ = q.takenKopecks(ph("paymentId")).prepare();
  const dueQ = q.dueRefunds(ph("now"), ph("limit")).prepare();
  const claimQ = q.claimRefund(ph("id"), ph("now"), ph("until")).prepare();
  const pendingQ = q.pendingRefunds().prepare();

  return {
    byId: (id: string): RefundRow | undefined => byIdQ.get({ id }),
    ofPayment: (paymentId: string): RefundRow[] => ofPaymentQ.all({ paymentId }),

    /** The IMMEDIATE transaction holds the file: the key lookup, the amount left and the promise are decided on the sums as they are. */
    open(payment: PaymentRow, req: RefundRequest, now: number, leaseMs: number): { refund: RefundRow; created: boolean } {
      return immediate(store, () => {
        if (req.idempotencyKey !== undefined) {
          const earlier = byKeyQ.get({ paymentId: payment.id, key: req.idempotencyKey });
          if (earlier) return { refund: earlier, created: false };
        }
        const row = payments.byId(payment.id)!;
        const amountKopecks = refundAmount(row, req.amountKopecks);
        const taken = takenQ.get({ paymentId: row.id })!.total;
        const refund = q.insertRefund(newRefundRow(row, req, amountKopecks, taken, now, leaseMs)).get()!;
        q.promiseRefund(row.id, amountKopecks, now).run();
        return { refund, created: true };
      });
    },

    pending: (): { count: number; oldest: number | null } => pendingQ.get() ?? { count: 0, oldest: null },
    due: (now: number, limit: number): string[] => dueQ.all({ now, limit }).map((x) => x.id),
    pendingSince: (before: number, limit: number): RefundRow[] => q.refundsPendingSince(before, limit).all(),
    claim: (id: string, now: number, leaseMs: number): RefundRow | undefined => claimQ.get({ id, now, until: now + leaseMs }),

    end(id: string, outcome: RefundOutcome, now: number, requestId?: string): RefundRow {
      let ended: EndedRefund | undefined;
      const { trace } = withTrace();
      const refund = immediate(store, () => {
        const row = byIdQ.get({ id })!;
        if (refundHasEnded(row.status)) return row;
        const done = q.endRefund(id, endedRefund(outcome, now)).get()!;
        const succeeded = succeededKopecks(outcome, done);
        if (succeeded > 0) payments.countRefund(done.shopId, now, succeeded);
        let payment = q.settleRefund(done.paymentId, done.amountKopecks, succeeded, now).get()!;
        q.insertEvents(refundEventRow(done, payment, now, requestId, trace)).run();
        const full = fullyRefunded(payment);
        if (full) payment = payments.transition(payment.id, "refund", now, { requestId, trace })!.row;
        ended = { refund: done, payment, becameRefunded: full, requestId };
        return done;
      });
      if (ended) onEnded(ended);
      return refund;
    },
  };
}

export type SqliteRefundsRepo = ReturnType<typeof createRefundsRepo>;

/**
 * The saved methods of payments.db. A method's end and its event commit in one IMMEDIATE
 * transaction; the UPDATE only takes an ACTIVE method, so a method ends once. `onEnded` runs after
 * the commit.
 */
export function createSavedMethodsRepo(store: SqliteStore, onEnded: (e: EndedMethod) => void) {
  const q = statementsOf(store);
  const byIdQ = q.methodById(ph("id")).prepare();
  const byProviderQ = q.methodByProviderId(ph("providerMethodId")).prepare();
  const dueQ = q.dueMethods(ph("now"), ph("limit")).prepare();

  return {
    byId: (id: string): SavedMethodRow | undefined => byIdQ.get({ id }),
    byProviderId: (providerMethodId: string): SavedMethodRow | undefined => byProviderQ.get({ providerMethodId }),
    list: (shopId: string, f: { customerId?: string; startingAfter?: string; limit: number }): SavedMethodRow[] => q.methodsPage(shopId, f).all(),

    end(id: string, how: MethodEnd, now: number): { method: SavedMethodRow; ended: boolean } | undefined {
      const event = methodEventStatus(how);
      const { trace } = withTrace();
      const result = immediate(store, () => {
        const ended = q.endMethod(id, methodEndedFields(how, now)).get();
        if (!ended) {
          const row = byIdQ.get({ id });
          return row && { method: row, ended: false };
        }
        if (event) {
          const payment = q.paymentById(ended.paymentId).get()!;
          q.insertEvents(paymentEventRow(payment, payment.status, now, undefined, trace, { status: event, method: ended })).run();
        }
        return { method: ended, ended: true };
      });
      if (result?.ended) onEnded({ method: result.method, event });
      return result;
    },

    dueForExpiry: (now: number, limit: number): string[] => dueQ.all({ now, limit }).map((r) => r.id),
  };
}

/** The outbox of payments.db: replicas on one file may publish the same row twice, which the stream drops by its Nats-Msg-Id. */
export function createOutboxRepo(store: SqliteStore): OutboxRepo {
  const q = statementsOf(store);
  const unpublishedQ = q.unpublished(ph("limit")).prepare();
  const backlogQ = q.backlog().prepare();
  return {
    backlog: async () => backlogQ.get() ?? { count: 0, oldest: null },
    round: async (limit, publish) => {
      const rows: OutboxRow[] = unpublishedQ.all({ limit });
      const confirmed = await publish(rows);
      if (confirmed.length > 0) q.markPublished(confirmed, Date.now()).run();
      return rows;
    },
  };
}

export function createIdempotencyKeysRepo(store: SqliteStore): IdempotencyKeysRepo {
  const q = statementsOf(store);
  const keys = keyStatements(store);
  return {
    put: async (row) => immediate(store, () => (keys.put(row) ? undefined : keys.live(row.shopId, row.key, row.createdAt))),
    sweep: async (cutoff, limit) => q.sweepKeys(cutoff, limit).all().length,
  };
}

/** The same methods, answering through a promise: what callers of either engine await. */
function asAsync<M extends Record<string, (...args: never[]) => unknown>>(methods: M): { [K in keyof M]: (...args: Parameters<M[K]>) => Promise<ReturnType<M[K]>> } {
  return Object.fromEntries(Object.entries(methods).map(([name, fn]) => [name, async (...args: never[]) => fn(...args)])) as never;
}

/**
 * payments.db. bun:sqlite is synchronous and every method's transaction runs from BEGIN IMMEDIATE
 * to COMMIT without awaiting, so no other request's statements can land inside it and no queue
 * (SerialSqlite) is needed. The creates of one event-loop turn are one IMMEDIATE transaction
 * (insertMany through a Batcher); its transitions another (GroupCommit, each in its own savepoint);
 * every caller is answered and every status change announced after the COMMIT.
 */
export function openSqlitePaymentsStore(path: string, hooks: StoreHooks): PaymentsStore {
  const store = openPaymentsFile(path);
  const group = new GroupCommit(store.sqlite, hooks.onCallbackError);
  const payments = createPaymentsRepo(store, (t) => group.afterCommit(() => hooks.onCommitted(t)));
  const refunds = createRefundsRepo(store, payments, hooks.onEnded);
  const { countRefund: _internal, insert: _insert, insertKeyed: _insertKeyed, insertMany, transition, ...reads } = payments;
  // The creates of one turn in one transaction (insertMany); a batch that fails is run again create by create.
  const creates = new Batcher(async (writes: CreateWrite[]) => insertMany(writes), CREATE_BATCH_MAX);
  const created = async <T extends PaymentRow | KeyedInsert>(write: CreateWrite): Promise<T> => createdBy<T>(await creates.add(write));
  const paymentsRepo: PaymentsRepo = {
    ...asAsync(reads),
    insert: (input, now, ttlMs) => created<PaymentRow>({ input, now, ttlMs }),
    insertKeyed: (input, now, ttlMs, keyed) => created<KeyedInsert>({ input, now, ttlMs, keyed }),
    transition: (id, trigger, now, opts) => {
      const traced = withTrace(opts);
      return group.run(() => transition(id, trigger, now, traced));
    },
  };
  return {
    payments: paymentsRepo,
    keys: createIdempotencyKeysRepo(store),
    refunds: asAsync(refunds) satisfies RefundsRepo,
    methods: asAsync(createSavedMethodsRepo(store, (e) => hooks.onMethodEnded?.(e))) satisfies SavedMethodsRepo,
    outbox: createOutboxRepo(store),
    close: async () => store.sqlite.close(),
  };
}
