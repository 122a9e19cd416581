import { and, asc, desc, eq, getTableColumns, gt, inArray, or, sql } from "drizzle-orm";
import type { SQL } from "bun";
import type { BunSQLDatabase } from "drizzle-orm/bun-sql";
import { IDEMPOTENCY_TTL_MS, type PaymentStatus } from "@payaccept/contracts";
import { firstRow as first, pgDb, storeNow, type PgStore } from "@payaccept/platform";
import { moscowDay, moscowDayEnd, moscowDayStart } from "@payaccept/domain";
import { planList, type SeqBounds } from "../domain/list-plan.ts";
import { refundAmount } from "../domain/refund-rules.ts";
import { announces, fullyRefunded, refundHasEnded, type PaymentTrigger } from "../domain/state-machine.ts";
import { OrderIdTaken, type BrowseFilter, type EndedRefund, type IdempotencyKeyRow, type IdempotencyKeysRepo, type KeyedCreate, type KeyedInsert, type NewPayment, type NewSavedMethodRow, type OutboxRepo, type PaymentRow, type PaymentsRepo, type PaymentsStore, type RefundsRepo, type SavedMethodsRepo, type StoreHooks, type TransitionOptions, type TransitionResult } from "./payments-store.ts";
import { onlyFinal, paymentsStatements, seqRange } from "./payments-terms.ts";
import { dailyCell, decideFor, endedRefund, insertedState, inSeqOrder, methodEndedFields, methodEventStatus, movedFields, newRefundRow, nextOfShop, paymentEventRow, refundEventRow, rollupRows, seqsOfPage, seqWindowOf, succeededKopecks, toDailyStatsRow, withTrace } from "./rows.ts";
import { idempotencyKeys as k, outbox, payments as p, schema } from "./schema.pg.ts";

/** The pool's database or a transaction's: the statements are the same. */
type Runner = Pick<BunSQLDatabase<Record<string, unknown>>, "select" | "insert" | "update" | "delete" | "execute">;

/** The shared statements (payments-terms.ts) on the pool or a transaction. */
const statementsOn = (db: Runner) => paymentsStatements(pgDb(db), schema);


type Cell = ReturnType<typeof dailyCell>;

/**
 * Adds the deltas to status_counts and daily_stats in one statement: daily_stats' upsert is a
 * data-modifying CTE the main statement does not read, which PostgreSQL runs to completion after
 * the main one (status_counts' upsert), so every batch locks status_counts' rows, then daily_stats'.
 * Deltas to one key are summed first (an upsert may not touch a row twice) and keys go in sorted
 * order, so two transactions touching the same rows lock them in the same order and never deadlock.
 */
async function bumpRollups(db: Runner, cells: Cell[]): Promise<void> {
  const { counts: countRows, daily: dailyRows } = rollupRows(cells);
  // A status's count moves only if some daily cell of that status does: no counts, no cells.
  if (dailyRows.length === 0) return;
  const q = statementsOn(db);
  const days = q.bumpDaily(dailyRows);
  if (countRows.length === 0) return void (await days);
  await db.execute(sql`with days as (${days.getSQL()}) ${q.bumpCounts(countRows).getSQL()}`);
}

type LastOfShop = { seq: number; createdAt: number; id: string };

/**
 * A create batch's shop locks and its shops' last payments, the reads sent behind the locks
 * without waiting for them (one round trip however many shops): sent with Bun.SQL's `execute()`
 * they start now, in this order, so each read runs after every lock is held, and a statement's
 * snapshot is taken when it starts, so it sees every payment committed under the lock before.
 * Written for Bun.SQL, not drizzle: fixed texts, which Bun prepares once per connection.
 */
async function lockShops(conn: SQL, shops: string[]): Promise<Map<string, LastOfShop | undefined>> {
  const locks = shops.map((shopId) => conn`select pg_advisory_xact_lock(hashtext(${`payments.seq:${shopId}`}))`.execute());
  const lasts = shops.map((shopId) => conn`select seq, created_at, id from payments where shop_id = ${shopId} order by seq desc limit 1`.execute());
  await Promise.all(locks);
  const rows = (await Promise.all(lasts)) as { seq: string; created_at: string; id: string }[][];
  // int8 comes back as a string from Bun.SQL; seqs and epoch ms fit a number exactly.
  return new Map(shops.map((shopId, i) => [shopId, rows[i]![0] && { seq: Number(rows[i]![0].seq), createdAt: Number(rows[i]![0].created_at), id: rows[i]![0].id }]));
}

/** A statement carries at most 65,535 parameters: a payment row has 28 columns. */
const ROWS_PER_STATEMENT = 1000;
const chunks = <T>(items: T[]): T[][] => Array.from({ length: Math.ceil(items.length / ROWS_PER_STATEMENT) }, (_, i) => items.slice(i * ROWS_PER_STATEMENT, (i + 1) * ROWS_PER_STATEMENT));

type NewInsert = { input: NewPayment; now: number; ttlMs: number; keyed?: KeyedCreate };

const orderKey = (shopId: string, orderId: string) => `${shopId}\u0000${orderId}`;

/**
 * The inserts of one batch in one transaction (group commit, as on SQLite: one commit
 * and one WAL flush for the lot, and multi-row INSERTs). Each shop's numbering is serialised by
 * the advisory lock `payments.seq:<shopId>` (taken in sorted order, so two batches never
 * deadlock): under it the shop's last payment is read and the batch numbered after it. The
 * INSERT skips a taken orderId (`ON CONFLICT (shop_id, order_id) DO NOTHING`); when it skipped
 * any, the rows it stored are deleted and the batch numbered again without them, so a taken
 * orderId uses up no seq and the seqs stay 1, 2, 3… without gaps. Each round removes at least one
 * orderId, and under the shop locks nobody else can take one meanwhile, so the second round is
 * the last. The common case (no taken orderId) is one INSERT with no look-up before it: a batch
 * for one shop is BEGIN, the lock with the last payment's read behind it, the INSERT, the rollups
 * and COMMIT (issue 21: was 9 round trips, with a savepoint around the INSERT and two upserts).
 *
 * A keyed create (insertKeyed) is serialised on its key by the same shop lock: the batch reads
 * its keys' live rows first (one SELECT), leaves out the creates whose key has one, and answers a
 * twin of the same key in the batch as its first; the rest's rows commit with their payments.
 * Unkeyed creates come back with an empty body.
 */
async function insertBatch(store: PgStore<typeof schema>, batch: NewInsert[]): Promise<(KeyedInsert | OrderIdTaken)[]> {
  return store.begin(async ({ db: tx, connection }) => {
    const shops = [...new Set(batch.map((b) => b.input.shopId))].sort();
    const locked = lockShops(connection, shops);
    const cutoff = Math.min(...batch.map((b) => b.now)) - IDEMPOTENCY_TTL_MS;
    // Started after the locks, so it too runs under them, in the same round trip.
    const [lastOfShops, settled] = await Promise.all([locked, settledByKeys(tx, batch, cutoff)]);
    const open = batch.map((_, i) => i).filter((i) => settled[i] === undefined);
    const taken = new Set<string>();
    for (;;) {
      const { values, outcomes } = numbered(
        open.map((i) => batch[i]!),
        new Map(lastOfShops),
        taken,
      );
      const inserted = await insertSkippingTaken(tx, values, taken);
      if (!inserted) continue;
      await bumpRollups(tx, inserted.map((row) => dailyCell(row, 1)));
      const byId = new Map(inserted.map((row) => [row.id, row]));
      const results: (KeyedInsert | OrderIdTaken | undefined)[] = new Array(batch.length);
      const keyRows: IdempotencyKeyRow[] = [];
      open.forEach((i, j) => {
        const o = outcomes[j]!;
        if (typeof o !== "number") return void (results[i] = o);
        const row = byId.get(values[o]!.id!)!;
        const { input, now, keyed } = batch[i]!;
        const body = keyed ? keyed.answer(row) : "";
        if (keyed) keyRows.push({ shopId: input.shopId, key: keyed.key, fingerprint: keyed.fingerprint, status: keyed.status, body, callId: keyed.callId, createdAt: now });
        results[i] = { kind: "created", row, body };
      });
      if (keyRows.length > 0) {
        const written = await statementsOn(tx).putKeys(keyRows, cutoff);
        // A key marked outside the shop lock (noteKey, a refusal) meanwhile: the batch is retried item by item.
        if (written.length < keyRows.length) throw new Error("an idempotency key was recorded meanwhile");
      }
      const keyRowOf = new Map(keyRows.map((r) => [orderKey(r.shopId, r.key), r]));
      return batch.map((b, i) => {
        const s = settled[i];
        if (s === undefined) return results[i]!;
        if (s.kind === "existing") return s;
        const first = results[s.twinOf]!;
        return first instanceof OrderIdTaken ? first : { kind: "existing", key: keyRowOf.get(orderKey(b.input.shopId, b.keyed!.key))! };
      });
    }
  });
}

/**
 * What the batch's keys settle before any insert: a create whose key has a live row is answered
 * by that row, the second create of one key in the batch by the first one's outcome (twinOf).
 * The keys are read with one SELECT for the batch (SQLite reads a create's key in its own transaction).
 */
async function settledByKeys(tx: Runner, batch: NewInsert[], cutoff: number): Promise<(Extract<KeyedInsert, { kind: "existing" }> | { kind: "twin"; twinOf: number } | undefined)[]> {
  const keyed = batch.filter((b) => b.keyed);
  if (keyed.length === 0) return batch.map(() => undefined);
  const live = await tx
    .select()
    .from(k)
    .where(and(gt(k.createdAt, cutoff), or(...keyed.map((b) => and(eq(k.shopId, b.input.shopId), eq(k.key, b.keyed!.key))))));
  const found = new Map(live.map((row) => [orderKey(row.shopId, row.key), row]));
  const firsts = new Map<string, number>();
  return batch.map((b, i) => {
    if (!b.keyed) return undefined;
    const kk = orderKey(b.input.shopId, b.keyed.key);
    const existing = found.get(kk);
    if (existing) return { kind: "existing", key: existing };
    const first = firsts.get(kk);
    if (first !== undefined) return { kind: "twin", twinOf: first };
    firsts.set(kk, i);
    return undefined;
  });
}

/** The batch's rows numbered after each shop's last, leaving out taken orderIds (and a second create of one orderId). */
function numbered(batch: NewInsert[], last: Map<string, LastOfShop | undefined>, taken: Set<string>) {
  const seen = new Set(taken);
  const values: (typeof p.$inferInsert)[] = [];
  const outcomes: (number | OrderIdTaken)[] = batch.map(({ input, now, ttlMs }) => {
    const key = orderKey(input.shopId, input.orderId);
    if (seen.has(key)) return new OrderIdTaken();
    seen.add(key);
    const next = nextOfShop(last.get(input.shopId), now);
    last.set(input.shopId, next);
    values.push({ ...input, receipt: input.receipt ?? null, methodFixed: input.method != null, ...next, ...insertedState(input, next.createdAt, ttlMs), updatedAt: next.createdAt });
    return values.length - 1;
  });
  return { values, outcomes };
}

/**
 * The rows inserted, or undefined (nothing kept) when some orderIds were taken: those are added to
 * `taken` and the rows this INSERT did store are deleted again. `ON CONFLICT DO NOTHING` skips a
 * row without aborting the transaction, so the common case needs no savepoint around it, and the
 * rows deleted were never visible outside the transaction.
 */
async function insertSkippingTaken(tx: Runner, values: (typeof p.$inferInsert)[], taken: Set<string>): Promise<PaymentRow[] | undefined> {
  const rows: PaymentRow[] = [];
  const q = statementsOn(tx);
  for (const part of chunks(values)) rows.push(...(await q.insertPayments(part)));
  if (rows.length === values.length) return rows;
  const stored = new Set(rows.map((r) => r.id));
  for (const v of values) if (!stored.has(v.id!)) taken.add(orderKey(v.shopId, v.orderId));
  // SQLite never stores a taken orderId's batch-mates: each create there is its own statement.
  for (const part of chunks([...stored])) await tx.delete(p).where(inArray(p.id, part));
  return undefined;
}

/**
 * Runs the writes asked for as batches, one at a time: those asked for while a batch is being
 * written wait for it and go together in the next one, so under load a batch grows to what
 * arrived during the last one (one transaction, one commit for all of them) instead of many small
 * transactions queueing for the same locks. `write` answers each item's outcome, an Error for one
 * that failed alone; when the batch itself fails, its items are tried again one by one.
 */
function oneBatchAtATime<I, O>(write: (batch: I[]) => Promise<(O | Error)[]>): (item: I) => Promise<O> {
  type Pending = { item: I; resolve: (o: O) => void; reject: (e: unknown) => void };
  let queue: Pending[] = [];
  let writing = false;
  const run = async (batch: Pending[]): Promise<void> => {
    try {
      const outcomes = await write(batch.map((b) => b.item));
      batch.forEach((b, i) => {
        const o = outcomes[i]!;
        if (o instanceof Error) b.reject(o);
        else b.resolve(o);
      });
    } catch (e) {
      if (batch.length === 1) batch[0]!.reject(e);
      else for (const b of batch) await run([b]);
    }
  };
  const flush = () => {
    if (writing || queue.length === 0) return;
    const batch = queue;
    queue = [];
    writing = true;
    void run(batch).finally(() => {
      writing = false;
      flush();
    });
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      if (queue.push({ item, resolve, reject }) === 1) setImmediate(flush);
    });
}

type TransitionRequest = { id: string; trigger: PaymentTrigger; now: number; opts: TransitionOptions };

/** The transitions of one batch in one transaction (group commit, as on SQLite). */
const transitionBatch = (db: PgStore<typeof schema>["db"], batch: TransitionRequest[]) => db.transaction((tx) => transitionsIn(tx, batch));

/**
 * Transitions inside an open transaction. Every payment of the batch is locked and read by one
 * statement (`SELECT … FOR UPDATE`), in payment id order, so two batches lock the payments they
 * share in the same order and never deadlock (LockRows takes them as the sort hands them over),
 * and each decision is taken on the status as it is; `locked` are rows this transaction already
 * holds locked (a refund's end has just updated its payment). Each move is decided and its row
 * computed here, in id order, two transitions of one payment one after the other, the second
 * deciding on what the first left; then the batch is written with one statement per table: the
 * saved methods, the payments (one UPDATE … FROM (VALUES …) of each payment's last row), the
 * outbox events, the rollups, last because the shop's counter rows are shared by all its
 * transitions (locked only for the upserts and the COMMIT). So a batch of any size is BEGIN, the
 * locked read, at most four statements and COMMIT while it holds its locks (issue 21).
 */
async function transitionsIn(tx: Runner, batch: TransitionRequest[], locked?: PaymentRow[]): Promise<(TransitionResult | undefined)[]> {
  const order = batch.map((_, i) => i).sort((a, b) => (batch[a]!.id < batch[b]!.id ? -1 : batch[a]!.id > batch[b]!.id ? 1 : a - b));
  const read = locked ?? (await tx.select().from(p).where(inArray(p.id, [...new Set(batch.map((t) => t.id))])).orderBy(asc(p.id)).for("update"));
  const rows = new Map<string, PaymentRow>(read.map((row) => [row.id, row]));
  const results: (TransitionResult | undefined)[] = new Array(batch.length);
  const moved = new Map<string, PaymentRow>();
  const setColumns = new Set<keyof PaymentRow>();
  const methods: NewSavedMethodRow[] = [];
  const events: (typeof outbox.$inferInsert)[] = [];
  const cells: Cell[] = [];
  for (const i of order) {
    const { id, trigger, now, opts } = batch[i]!;
    const row = rows.get(id);
    if (!row) continue;
    const decision = decideFor(row, trigger, opts);
    if (decision.kind !== "move") {
      results[i] = { decision, row };
      continue;
    }
    if (opts.savedMethod) methods.push(opts.savedMethod);
    const fields = movedFields(decision.to, now, opts.patch?.(row));
    const updated = { ...row };
    // As drizzle's `set` does: a field given as undefined leaves its column as it is.
    for (const [key, value] of Object.entries(fields) as [keyof PaymentRow, never][]) {
      if (value === undefined) continue;
      updated[key] = value;
      setColumns.add(key);
    }
    rows.set(id, updated);
    moved.set(id, updated);
    results[i] = { decision, row: updated };
    if (announces(decision)) events.push(paymentEventRow(updated, decision.from, now, opts.requestId, opts.trace));
    cells.push(dailyCell(row, -1), dailyCell(updated, 1));
  }
  const q = statementsOn(tx);
  if (methods.length > 0) await q.insertMethods(methods);
  for (const part of chunks([...moved.values()])) await tx.execute(updateRows(part, [...setColumns]));
  if (events.length > 0) await q.insertEvents(events);
  await bumpRollups(tx, cells);
  return results;
}

const paymentColumns = getTableColumns(p);

/**
 * One UPDATE writing each row's `columns` as the batch computed them: `payments AS p SET c = v.c
 * FROM (VALUES …) AS v(id, c…)`, every value cast to its column's type (a parameter of VALUES has
 * none). Its rows are locked by the transaction and nothing else sets a column (no triggers,
 * defaults or generated columns on update), so the row computed is the row stored: no RETURNING.
 */
function updateRows(rows: PaymentRow[], columns: (keyof PaymentRow)[]) {
  const cols = columns.map((key) => ({ key, column: paymentColumns[key] }));
  const name = (c: (typeof cols)[number]) => sql.identifier(c.column.name);
  const values = rows.map(
    (row) => sql`(${sql.join([sql`${row.id}::text`, ...cols.map((c) => sql`${sql.param(row[c.key], c.column)}::${sql.raw(c.column.getSQLType())}`)], sql`, `)})`,
  );
  return sql`update ${p} as p set ${sql.join(
    cols.map((c) => sql`${name(c)} = v.${name(c)}`),
    sql`, `,
  )} from (values ${sql.join(values, sql`, `)}) as v(id, ${sql.join(cols.map(name), sql`, `)}) where p.id = v.id`;
}

function paymentsRepo(store: PgStore<typeof schema>, hooks: StoreHooks): PaymentsRepo {
  const { db } = store;
  const q = statementsOn(db);
  const insert = oneBatchAtATime((batch: NewInsert[]): Promise<(KeyedInsert | Error)[]> => insertBatch(store, batch));
  const transition = oneBatchAtATime((batch: TransitionRequest[]) => transitionBatch(db, batch));
  // Every statement of a read's transaction goes through its handle `run`: one taken from the pool
  // would wait for a second connection, and with every connection held by such reads, forever.
  const seqBounds = async (run: ReturnType<typeof statementsOn>, shopId: string, fromMs?: number, toMs?: number): Promise<SeqBounds> => {
    const bounds: SeqBounds = { lastSeq: (await first(run.lastOfShop(shopId)))?.seq ?? 0 };
    if (fromMs !== undefined) bounds.fromSeq = (await first(run.firstSeqFrom(shopId, fromMs)))?.seq ?? null;
    if (toMs !== undefined) bounds.toSeq = (await first(run.lastSeqTo(shopId, toMs)))?.seq ?? null;
    return bounds;
  };
  const rowsBySeq = async (run: ReturnType<typeof statementsOn>, shopId: string, seqs: number[]): Promise<PaymentRow[]> => {
    if (seqs.length === 0) return [];
    return inSeqOrder(await run.rowsOfSeqs(shopId, seqs), seqs);
  };
  /** The seqs of a status-filtered page: one walk of (shop, status, seq) for all the statuses (SQLite merges one walk per status). */
  const statusSeqs = async (run: Runner, shopId: string, statuses: PaymentStatus[], lo: number, hi: number, offset: number, limit: number, descending = false) =>
    (
      await run
        .select({ seq: p.seq })
        .from(p)
        .where(and(seqRange(p, shopId, lo, hi), inArray(p.status, statuses)))
        .orderBy(descending ? desc(p.seq) : asc(p.seq))
        .limit(limit)
        .offset(offset)
    ).map((x) => x.seq);
  /** A page of the dashboard's list in its order: by seq as a range or a status walk, by amount along its index. */
  const browseSeqs = async (tx: Runner, shopId: string, f: BrowseFilter, window: { first: number; last: number }): Promise<number[]> => {
    const offset = (f.page - 1) * f.limit;
    const descending = f.sort.endsWith("_desc");
    if (f.sort.startsWith("amount")) return (await statementsOn(tx).amountPage(shopId, window, { statuses: f.statuses, descending, offset, limit: f.limit })).map((x) => x.seq);
    if (f.statuses?.length) return statusSeqs(tx, shopId, f.statuses, window.first, window.last, offset, f.limit, descending);
    return seqsOfPage(window, offset, f.limit, descending);
  };

  // Built once: drizzle builds a statement's text anew on every call; building SELECTs of a
  // payment's 45 columns was ~20 % of payments' CPU under the cancel load (docs/performance.md).
  const byId = q.paymentById(sql.placeholder("id")).prepare("payments_by_id");
  return {
    byId: (id) => first(byId.execute({ id })),
    byOrderId: (shopId, orderId) => first(q.paymentByOrderId(shopId, orderId)),
    insert: async (input, now, ttlMs) => ((await insert({ input, now, ttlMs })) as Extract<KeyedInsert, { kind: "created" }>).row,
    insertKeyed: (input, now, ttlMs, keyed) => insert({ input, now, ttlMs, keyed }),
    async transition(id, trigger, now, opts = {}) {
      const result = await transition({ id, trigger, now, opts: withTrace(opts) });
      if (result?.decision.kind === "move") hooks.onCommitted({ row: result.row, from: result.decision.from, to: result.decision.to, trigger, requestId: opts.requestId });
      return result;
    },
    // REPEATABLE READ: the page and the totals are read from one snapshot.
    browse: (shopId, f) =>
      db.transaction(
        async (tx) => {
          const run = statementsOn(tx);
          const window = seqWindowOf(await seqBounds(run, shopId, f.fromDay ? moscowDayStart(f.fromDay) : undefined, f.toDay ? moscowDayEnd(f.toDay) : undefined));
          const items = window ? await rowsBySeq(run, shopId, await browseSeqs(tx, shopId, f, window)) : [];
          return { items, byStatus: await run.rollupTotals(shopId, f) };
        },
        { isolationLevel: "repeatable read", accessMode: "read only" },
      ),
    dailyRefunds: (shopIds, fromDay, toDay) => q.dailyRefunds(shopIds, fromDay, toDay),
    dailyStats: async (shopIds, fromDay, toDay) => (await q.dailyStats(shopIds, fromDay, toDay)).map(toDailyStatsRow),
    finalEvents: async (id) => (await q.finalEvents(id)).filter(onlyFinal),
    list: (shopId, query) =>
      db.transaction(
        async (tx) => {
          const run = statementsOn(tx);
          const plan = planList(query, await seqBounds(run, shopId, query.from ? Date.parse(query.from) : undefined, query.to ? Date.parse(query.to) : undefined));
          if (plan.kind === "empty") return { items: [], total: plan.total };
          if (plan.kind === "seqRange") return { items: await run.seqRangeRows(shopId, plan.first, plan.last), total: plan.total };
          const items = await rowsBySeq(run, shopId, await statusSeqs(tx, shopId, plan.statuses, plan.first, plan.last, plan.offset, plan.limit));
          const total =
            plan.total === "counters"
              ? (await first(run.countersTotal(shopId, plan.statuses)))?.n
              : (await first(run.countInStatuses(shopId, plan.statuses, plan.first, plan.last)))?.n;
          return { items, total: total ?? 0 };
        },
        { isolationLevel: "repeatable read", accessMode: "read only" },
      ),
    exportPage: (shopId, f) => q.exportPage(shopId, f),
    dueForExpiry: async (now, limit) => (await q.dueForExpiry(now, limit)).map((x) => x.id),
    dueCharges: async (now, limit) => (await q.dueCharges(now, limit)).map((x) => x.id),
    reconcileDue: (before, limit, shopId) => q.reconcileDue(before, limit, shopId),
    claimCharge: (id, now, leaseMs) => first(q.claimCharge(id, now, now + leaseMs)),
    keepCaptureReceipt: async (id, receipt) => void (await q.keepCaptureReceipt(id, receipt)),
  };
}

function refundsRepo(db: PgStore<typeof schema>["db"], hooks: StoreHooks): RefundsRepo {
  const q = statementsOn(db);
  return {
    byId: (id) => first(q.refundById(id)),
    ofPayment: (paymentId) => q.refundsOf(paymentId),
    // The payment's row lock (FOR UPDATE) serialises the refunds of one payment: the key lookup,
    // the amount left and the promise are decided on the sums as they are (SQLite: the file's lock).
    open: (payment, req, now, leaseMs) =>
      db.transaction(async (tx) => {
        const run = statementsOn(tx);
        const row = (await first(run.paymentById(payment.id).for("update")))!;
        if (req.idempotencyKey !== undefined) {
          const earlier = await first(run.refundByKey(payment.id, req.idempotencyKey));
          if (earlier) return { refund: earlier, created: false };
        }
        const amountKopecks = refundAmount(row, req.amountKopecks);
        const taken = (await first(run.takenKopecks(row.id)))!.total;
        const refund = (await first(run.insertRefund(newRefundRow(row, req, amountKopecks, taken, now, leaseMs))))!;
        await run.promiseRefund(row.id, amountKopecks, now);
        return { refund, created: true };
      }),
    pending: async () => (await first(q.pendingRefunds()))!,
    due: async (now, limit) => (await q.dueRefunds(now, limit)).map((x) => x.id),
    pendingSince: (before, limit) => q.refundsPendingSince(before, limit),
    claim: (id, now, leaseMs) => first(q.claimRefund(id, now, now + leaseMs)),
    // The refund's row lock, then the payment's (the order every refund write takes them in).
    async end(id, outcome, now, requestId) {
      const { trace } = withTrace();
      const { refund, ended, moved } = await db.transaction(async (tx) => {
        const run = statementsOn(tx);
        const row = (await first(run.refundById(id).for("update")))!;
        if (refundHasEnded(row.status)) return { refund: row };
        const done = (await first(run.endRefund(id, endedRefund(outcome, now))))!;
        const succeeded = succeededKopecks(outcome, done);
        if (succeeded > 0) await run.countRefund(done.shopId, moscowDay(now), succeeded);
        const payment = (await first(run.settleRefund(done.paymentId, done.amountKopecks, succeeded, now)))!;
        await run.insertEvents(refundEventRow(done, payment, now, requestId, trace));
        const full = fullyRefunded(payment);
        // The refund's UPDATE has just locked the payment: the transition decides on that row.
        const moved = full ? (await transitionsIn(tx, [{ id: payment.id, trigger: "refund", now, opts: { requestId, trace } }], [payment]))[0] : undefined;
        const ended: EndedRefund = { refund: done, payment: moved?.row ?? payment, becameRefunded: full, requestId };
        return { refund: done, ended, moved };
      });
      if (moved?.decision.kind === "move") hooks.onCommitted({ row: moved.row, from: moved.decision.from, to: moved.decision.to, trigger: "refund", requestId });
      if (ended) hooks.onEnded(ended);
      return refund;
    },
  };
}

/**
 * Saved methods. A method's end is one conditional UPDATE (only an ACTIVE method ends: of two
 * enders on any host the second changes nothing) with its event in the same transaction.
 */
function savedMethodsRepo(db: PgStore<typeof schema>["db"], hooks: StoreHooks): SavedMethodsRepo {
  const q = statementsOn(db);
  return {
    byId: (id) => first(q.methodById(id)),
    byProviderId: (providerMethodId) => first(q.methodByProviderId(providerMethodId)),
    list: (shopId, f) => q.methodsPage(shopId, f),
    async end(id, how, now) {
      const event = methodEventStatus(how);
      const { trace } = withTrace();
      const result = await db.transaction(async (tx) => {
        const run = statementsOn(tx);
        const ended = await first(run.endMethod(id, methodEndedFields(how, now)));
        if (!ended) {
          const row = await first(run.methodById(id));
          return row && { method: row, ended: false };
        }
        if (event) {
          const payment = (await first(run.paymentById(ended.paymentId)))!;
          await run.insertEvents(paymentEventRow(payment, payment.status, now, undefined, trace, { status: event, method: ended }));
        }
        return { method: ended, ended: true };
      });
      if (result?.ended) hooks.onMethodEnded?.({ method: result.method, event });
      return result;
    },
    dueForExpiry: async (now, limit) => (await q.dueMethods(now, limit)).map((x) => x.id),
  };
}

/**
 * The outbox's rounds hold the advisory lock `payments.outbox` for their transaction: replicas'
 * relays publish one round after another, so two relays never publish a payment's later event
 * before its earlier one, and a row is marked by the round that published it. (Replicas on one
 * SQLite file may publish a row twice instead, which the stream drops by its Nats-Msg-Id.)
 */
function outboxRepo(db: PgStore<typeof schema>["db"]): OutboxRepo {
  const q = statementsOn(db);
  return {
    backlog: async () => (await first(q.backlog()))!,
    round: (limit, publish) =>
      db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext('payments.outbox'))`);
        const run = statementsOn(tx);
        const rows = await run.unpublished(limit);
        const confirmed = await publish(rows);
        if (confirmed.length > 0) await run.markPublished(confirmed, storeNow());
        return rows;
      }),
  };
}

/**
 * Idempotency-Keys written outside a create (a refusal, another route's mark): one upsert that
 * leaves a live row alone (it waits for a concurrent writer of the same key to commit), then that
 * row read.
 */
function keysRepo(db: PgStore<typeof schema>["db"]): IdempotencyKeysRepo {
  const q = statementsOn(db);
  return {
    async put(row) {
      const cutoff = row.createdAt - IDEMPOTENCY_TTL_MS;
      if (await first(q.putKeys(row, cutoff))) return undefined;
      return first(q.liveKey(row.shopId, row.key, cutoff));
    },
    sweep: async (cutoff, limit) => (await q.sweepKeys(cutoff, limit)).length,
  };
}

export function openPgPaymentsStore(store: PgStore<typeof schema>, hooks: StoreHooks): PaymentsStore {
  const { db, close } = store;
  return {
    payments: paymentsRepo(store, hooks),
    keys: keysRepo(db),
    refunds: refundsRepo(db, hooks),
    methods: savedMethodsRepo(db, hooks),
    outbox: outboxRepo(db),
    close,
  };
}
