import type { DailyStatsRow, Failure, FinalStatus, ListPaymentsQuery, MethodEventStatus, PaymentSort, PaymentStatus, RevokedBy, StatusTotal } from "@payaccept/contracts";
import type { TraceCarrier } from "@payaccept/platform";
import type { PaymentTrigger, TransitionDecision } from "../domain/state-machine.ts";
import type { NewRow, Row } from "@payaccept/platform/table";
import type { idempotencyKeys, outbox, payments, refunds, savedMethods } from "./schema.ts";

/**
 * payments' store as its users see it, whichever engine holds the rows: the interface, its row
 * types and errors. open-payments-store.ts opens it on the configured engine.
 */

/** The rows as both engines read them (schema.ts defines the tables), for the domain and the app. */
export type PaymentRow = Row<typeof payments>;
export type NewPaymentRow = NewRow<typeof payments>;
export type RefundRow = Row<typeof refunds>;
export type OutboxRow = Row<typeof outbox>;
export type SavedMethodRow = Row<typeof savedMethods>;
export type NewSavedMethodRow = NewRow<typeof savedMethods>;
export type IdempotencyKeyRow = Row<typeof idempotencyKeys>;

/** What a merchant's create request becomes; the store assigns id, seq, times and status. */
export type NewPayment = Omit<NewPaymentRow, "id" | "seq" | "status" | "createdAt" | "updatedAt" | "expiresAt" | "paidAt" | "methodFixed" | "chargeRetryAt">;

export type TransitionResult = { decision: TransitionDecision; row: PaymentRow };
export type CommittedTransition = { row: PaymentRow; from: PaymentStatus; to: PaymentStatus; trigger: PaymentTrigger; requestId?: string };

export type ExportFilter = { fromMs?: number; toMs?: number; statuses?: PaymentStatus[]; after?: { createdAt: number; id: string }; limit: number };

/** The dashboard's list: instants bounding the Moscow days asked for, statuses, order, page. */
export type BrowseFilter = {
  fromDay?: string;
  toDay?: string;
  statuses?: PaymentStatus[];
  sort: PaymentSort;
  page: number;
  limit: number;
};

export class OrderIdTaken extends Error {}

/**
 * A create's Idempotency-Key, recorded in the transaction that inserts its payment: the row gets
 * `answer(row)`, the body the create answers (docs/gateway.md, "Idempotency keys").
 */
export type KeyedCreate = { key: string; fingerprint: string; callId: string | null; status: number; answer: (row: PaymentRow) => string };
/** A keyed insert made the payment and recorded its answer, or met the key's live row and inserted nothing. */
export type KeyedInsert = { kind: "created"; row: PaymentRow; body: string } | { kind: "existing"; key: IdempotencyKeyRow };

export type TransitionOptions = {
  /** A further condition on the row as it is inside the transaction (e.g. still the same provider session). */
  onlyIf?: (row: PaymentRow) => boolean;
  /** The fields the move sets besides the status. */
  patch?: (row: PaymentRow) => Partial<PaymentRow>;
  /** A method the move saves (the buyer's card or SBP account, once paid or held): inserted in the move's transaction. */
  savedMethod?: NewSavedMethodRow;
  requestId?: string;
  /** The caller's trace context, for the outbox row (taken by the store when the call is made: the write itself may run in a batch). */
  trace?: TraceCarrier;
};

export type RefundRequest = { amountKopecks?: number; reason?: string; idempotencyKey?: string };
export type RefundOutcome = { status: "SUCCEEDED" } | { status: "FAILED"; failure: Failure };
export type EndedRefund = { refund: RefundRow; payment: PaymentRow; becameRefunded: boolean; requestId?: string };

/**
 * The payments and their rollups, the same on SQLite and PostgreSQL (docs/conventions.md, "One
 * repository, two engines"; docs/payments.md, "Locks" for what each write serialises on). Every
 * write is one transaction: the status, the per-status counters, the daily rollup and the outbox
 * row change together or not at all.
 */
export interface PaymentsRepo {
  byId(id: string): Promise<PaymentRow | undefined>;
  byOrderId(shopId: string, orderId: string): Promise<PaymentRow | undefined>;
  /**
   * Inserts a payment numbered next in its shop; throws OrderIdTaken. A buyer's payment is CREATED,
   * expiring at createdAt + ttlMs; a merchant-initiated one is born PENDING: a live charge with
   * its driver's lease (charge_retry_at = createdAt + ttlMs) and no expiry, a sandbox one expiring
   * at createdAt + ttlMs (insertedState). The inserts of one event-loop turn share one transaction
   * (group commit); each caller hears after the commit.
   */
  insert(input: NewPayment, now: number, ttlMs: number): Promise<PaymentRow>;
  /**
   * insert() under an Idempotency-Key: when the shop's key has a live row (IDEMPOTENCY_TTL_MS),
   * nothing is inserted and that row comes back; otherwise the payment and the key's row with its
   * answer commit together. Throws OrderIdTaken, recording nothing.
   */
  insertKeyed(input: NewPayment, now: number, ttlMs: number, keyed: KeyedCreate): Promise<KeyedInsert>;
  /**
   * Applies a trigger of the state machine to the row as it is inside the transaction. A move into
   * a final status writes its outbox event in the same transaction, with the id of the API request
   * that caused it (`requestId`) when there is one. undefined for an unknown id.
   */
  transition(id: string, trigger: PaymentTrigger, now: number, opts?: TransitionOptions): Promise<TransitionResult | undefined>;
  /** The dashboard's list: a sorted page and the count and sum of the whole filtered set per status, read together. */
  browse(shopId: string, f: BrowseFilter): Promise<{ items: PaymentRow[]; byStatus: StatusTotal[] }>;
  /** SUCCEEDED refunds of the shops per Moscow day of [fromDay, toDay], summed over the shops. */
  dailyRefunds(shopIds: string[], fromDay: string, toDay: string): Promise<{ day: string; count: number; sumKopecks: number }[]>;
  /** The daily rollup of the shops over Moscow days [fromDay, toDay], summed over the shops; empty cells left out. */
  dailyStats(shopIds: string[], fromDay: string, toDay: string): Promise<DailyStatsRow[]>;
  /** When the payment reached each final status: its events in the outbox (kept, and unique per status). */
  finalEvents(id: string): Promise<{ status: FinalStatus; at: number }[]>;
  /** List mode of §4.2, planned so that unfiltered and time-window pages never scan the shop. */
  list(shopId: string, query: ListPaymentsQuery): Promise<{ items: PaymentRow[]; total: number }>;
  /** Keyset page in (createdAt, id) order for CSV export. */
  exportPage(shopId: string, f: ExportFilter): Promise<PaymentRow[]>;
  /** Ids of CREATED, PENDING and AUTHORIZED payments whose time is up, oldest deadline first. */
  dueForExpiry(now: number, limit: number): Promise<string[]>;
  /** Ids of PENDING live charges whose driver's lease has run out, oldest first. */
  dueCharges(now: number, limit: number): Promise<string[]>;
  /** Live PENDING and AUTHORIZED payments unchanged since `before`, oldest change first: the reconciliation's candidates. */
  reconcileDue(before: number, limit: number, shopId?: string): Promise<PaymentRow[]>;
  /** Takes a due PENDING charge for leaseMs (one driver at a time); undefined when it is not due or no longer PENDING. */
  claimCharge(id: string, now: number, leaseMs: number): Promise<PaymentRow | undefined>;
  /** Keeps the receipt lines a partial capture asked for, while the payment is AUTHORIZED (for a capture its callback commits). */
  keepCaptureReceipt(id: string, receipt: NonNullable<PaymentRow["captureReceipt"]>): Promise<void>;
}

/** How a saved method ends: for good, once; `notify` writes its webhook event (not for the shop's own revocation). */
export type MethodEnd = { status: "EXPIRED" | "REVOKED"; revokedBy: RevokedBy | null; notify: boolean };
export type EndedMethod = { method: SavedMethodRow; event: MethodEventStatus | null };

/** Saved methods (docs/payments.md, "Saved methods"); a new one is inserted by the payment transition that saves it. */
export interface SavedMethodsRepo {
  byId(id: string): Promise<SavedMethodRow | undefined>;
  byProviderId(providerMethodId: string): Promise<SavedMethodRow | undefined>;
  /** The shop's methods newest first, one customer's when given, older than `startingAfter` (a method id). */
  list(shopId: string, f: { customerId?: string; startingAfter?: string; limit: number }): Promise<SavedMethodRow[]>;
  /**
   * ACTIVE → EXPIRED or REVOKED with, when `notify`, its event under the saving payment, in one
   * transaction; `ended` false when it was not ACTIVE (a method ends once). undefined for an unknown id.
   */
  end(id: string, how: MethodEnd, now: number): Promise<{ method: SavedMethodRow; ended: boolean } | undefined>;
  /** Ids of ACTIVE cards whose expiry month is over, oldest first. */
  dueForExpiry(now: number, limit: number): Promise<string[]>;
}

/**
 * Refunds. Opening and ending a refund are each one transaction that also moves the payment's
 * refunded/refunding sums (which the database itself keeps within the amount) and, on the end,
 * writes the RefundEvent and, when the payment is now fully refunded, its SUCCESS → REFUNDED
 * transition with the PaymentEvent.
 */
export interface RefundsRepo {
  byId(id: string): Promise<RefundRow | undefined>;
  /** Oldest first (ids are UUIDv7). */
  ofPayment(paymentId: string): Promise<RefundRow[]>;
  /**
   * Records a PENDING refund and promises its amount (payments.refunding_kopecks), or returns the
   * refund this idempotency key already made. `leaseMs`: how long the caller drives it before the
   * sweeper may. Throws the domain's CONFLICT when the payment cannot be refunded by that much.
   */
  open(payment: PaymentRow, req: RefundRequest, now: number, leaseMs: number): Promise<{ refund: RefundRow; created: boolean }>;
  /** How many refunds are PENDING, and since when. */
  pending(): Promise<{ count: number; oldest: number | null }>;
  /** PENDING refunds whose retry time has come, oldest first. */
  due(now: number, limit: number): Promise<string[]>;
  /** Refunds PENDING since before `before`, oldest first (the reconciliation reports them). */
  pendingSince(before: number, limit: number): Promise<RefundRow[]>;
  /** Takes a due PENDING refund for leaseMs (one driver at a time); undefined when it is not due or has ended. */
  claim(id: string, now: number, leaseMs: number): Promise<RefundRow | undefined>;
  /**
   * Ends a PENDING refund; a refund that has already ended is returned as it is (two drivers may
   * reach the end of the same refund: the provider's answer is the same for both). `requestId` is
   * the API request that drove it to its end, for its events; the sweeper has none.
   */
  end(id: string, outcome: RefundOutcome, now: number, requestId?: string): Promise<RefundRow>;
}

export interface OutboxRepo {
  /** How many events wait for the relay, and since when. */
  backlog(): Promise<{ count: number; oldest: number | null }>;
  /**
   * One relay round: up to `limit` unpublished rows, oldest first (so a payment's events reach the
   * stream in the order they happened), handed to `publish`, which answers the seqs the stream
   * acknowledged; those are marked published. Rounds of replicas run one after another.
   */
  round(limit: number, publish: (rows: OutboxRow[]) => Promise<number[]>): Promise<OutboxRow[]>;
}

/** The Idempotency-Keys of creates and the marks of the gateway's other keys (schema.ts, idempotencyKeys). */
export interface IdempotencyKeysRepo {
  /** Writes the row unless the key has a live one, which comes back instead (an expired row is replaced). */
  put(row: IdempotencyKeyRow): Promise<IdempotencyKeyRow | undefined>;
  /** Deletes up to `limit` rows written at or before `cutoff`; how many. */
  sweep(cutoff: number, limit: number): Promise<number>;
}

export type PaymentsStore = {
  payments: PaymentsRepo;
  keys: IdempotencyKeysRepo;
  refunds: RefundsRepo;
  methods: SavedMethodsRepo;
  outbox: OutboxRepo;
  close(): Promise<void>;
};

export type StoreHooks = {
  /** After the commit of every status change. */
  onCommitted: (t: CommittedTransition) => void;
  /** After the commit of every refund's end. */
  onEnded: (e: EndedRefund) => void;
  /** After the commit of every saved method's end. */
  onMethodEnded?: (e: EndedMethod) => void;
  /** An after-commit callback that threw (logged; the write stays committed). */
  onCallbackError?: (err: unknown) => void;
};
