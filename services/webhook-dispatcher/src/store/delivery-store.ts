import type { DeliveryHealth, DeliveryResult, Reason } from "@payaccept/contracts";
import type { AttemptRow, DeliveryRow } from "./schema.ts";

/** The dispatcher's delivery store as its users see it, whichever engine holds it; open-delivery-store.ts opens it. */

export type DeliveryPage = { delivery: DeliveryRow; attempts: AttemptRow[] }[];

export type NewDelivery = Pick<DeliveryRow, "id" | "shopId" | "paymentId" | "status" | "orderId" | "body" | "occurredAt" | "createdAt"> & Partial<Pick<DeliveryRow, "traceContext">>;
/** Where a series goes after an attempt; its last failure as the columns of lastErrorColumns (failure-columns.ts). */
export type SeriesState = { result: DeliveryResult; lastErrorCode: Reason | null; lastErrorParams: string | null; nextAttemptAt: number | null; at: number };
export type UnqueuedSeries = Pick<DeliveryRow, "id" | "shopId" | "series" | "traceContext">;
export type LogQuery = { shopId: string; paymentId?: string; before?: string; limit: number; status?: string; failedOnly?: boolean; orderId?: string };

/**
 * Deliveries and their attempts, on SQLite (delivery-store.sqlite.ts) or PostgreSQL
 * (delivery-store.pg.ts); the dispatcher does not know which. Each method is one atomic unit (the
 * dispatcher never composes two into a transaction, so the interface has no tx), and
 * docs/webhooks.md ("The store on two engines") names the lock or key each one relies on when
 * several replicas write at once.
 */
export interface DeliveryStore {
  /**
   * Records the deliveries in one commit: each entry is false when its (payment id, status) pair
   * was already recorded, earlier or by an entry before it.
   */
  insertDeliveries(ds: NewDelivery[]): Promise<boolean[]>;
  get(id: string): Promise<DeliveryRow | undefined>;
  /**
   * Logs the attempt and moves its series on, together. False when that attempt number was
   * already logged (a redelivered copy raced this one); the store is then left as the first left it.
   */
  recordAttempt(a: AttemptRow, next: SeriesState): Promise<boolean>;
  /** Starts a new attempt series of one delivery of the shop; undefined when it has no such delivery. */
  restart(shopId: string, id: string, at: number): Promise<DeliveryRow | undefined>;
  /** Starts a new attempt series for every delivery of the shop whose event occurred at or after `since`. */
  restartSince(shopId: string, since: number, at: number): Promise<number>;
  /** Series whose dispatch message is not yet confirmed by JetStream, oldest first. */
  unqueued(limit: number): Promise<UnqueuedSeries[]>;
  /** Every pending series goes back to the relay: their messages were lost with the dispatch stream. */
  requeuePending(): Promise<number>;
  /** Raises `queued_series` (never lowers it) for each confirmed series, in one commit. */
  markQueuedMany(rows: { id: string; series: number }[]): Promise<void>;
  /** A page of the shop's deliveries, newest first, each with its attempts in order; every filter has its index. */
  list(q: LogQuery): Promise<DeliveryPage>;
  /** Per shop, the deliveries whose event occurred on Moscow days [fromDay, toDay] (the daily rollup), and the endpoint's latest error. */
  health(shopIds: string[], fromDay: string, toDay: string): Promise<DeliveryHealth[]>;
  attemptsOf(id: string): Promise<AttemptRow[]>;
  close(): Promise<void>;
}
