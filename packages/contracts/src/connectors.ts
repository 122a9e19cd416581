import { z } from "zod";
import { IsoDateTime, PaymentStatus, Uuid } from "./primitives.ts";

/**
 * Connectors: the acquirers payments can reach through its provider port (docs/connectors.md).
 * This list is the registry of their names; payments' `connectors/registry.ts` maps each to its
 * implementation (a name without one is a compile error there).
 */
export const CONNECTOR_IDS = ["emulator", "tbank"] as const;
export const ConnectorId = z.enum(CONNECTOR_IDS);
export type ConnectorId = z.infer<typeof ConnectorId>;

/** The most connectors a shop may list for one method: the first, and the ones it fails over to. */
export const MAX_CONNECTORS_PER_METHOD = 3;

const ConnectorList = z
  .array(ConnectorId)
  .min(1)
  .max(MAX_CONNECTORS_PER_METHOD)
  .refine((ids) => new Set(ids).size === ids.length, { message: "a connector is listed twice" });

/**
 * A live shop's acquirers per method, in the order they are tried: SBP through one bank, cards
 * through another, each with its failover. A method left out goes to the deployment's default
 * connector (PAYMENTS_DEFAULT_CONNECTOR). Set by operators only; sandbox shops have none.
 */
export const ShopConnectors = z.object({ SBP: ConnectorList.optional(), CARD: ConnectorList.optional() });
export type ShopConnectors = z.infer<typeof ShopConnectors>;

export const CIRCUIT_STATES = ["closed", "open", "half-open"] as const;
export const CircuitState = z.enum(CIRCUIT_STATES);
export type CircuitState = z.infer<typeof CircuitState>;

/**
 * A connector as one payments process sees it (rpcs.payments.connectors): whether this
 * deployment configures it, its circuit, and its calls over the last few minutes.
 */
export const ConnectorHealth = z.object({
  id: ConnectorId,
  configured: z.boolean(),
  default: z.boolean(),
  circuit: CircuitState,
  /** Calls in the window, and the share that got an answer (a refusal is an answer; a timeout, a 5xx or a refused connection is not). */
  calls: z.number().int().nonnegative(),
  successRatio: z.number().min(0).max(1).nullable(),
  p95Ms: z.number().nonnegative().nullable(),
  windowSeconds: z.number().int().nonnegative(),
});
export type ConnectorHealth = z.infer<typeof ConnectorHealth>;

/** What a reconciliation found about one payment or refund: ours and the acquirer's view, and what was done. */
export const RECONCILE_KINDS = ["payment", "refund", "hold", "charge"] as const;
export const RECONCILE_ACTIONS = ["applied", "reported"] as const;
export const ReconcileDifference = z.object({
  kind: z.enum(RECONCILE_KINDS),
  paymentId: Uuid,
  refundId: Uuid.nullable(),
  shopId: z.string(),
  connector: ConnectorId,
  /** Our status of the payment (or refund), and the acquirer's word for its session. */
  ours: z.string(),
  theirs: z.string(),
  /** applied: the acquirer is authoritative and its result was committed (with its webhook); reported: a person must look. */
  action: z.enum(RECONCILE_ACTIONS),
  /** Our status after the action. */
  status: z.union([PaymentStatus, z.string()]),
  detail: z.string(),
});
export type ReconcileDifference = z.infer<typeof ReconcileDifference>;

export const ReconcileReport = z.object({
  startedAt: IsoDateTime,
  finishedAt: IsoDateTime,
  /** Payments and refunds looked up at their acquirer. */
  checked: z.number().int().nonnegative(),
  /** Lookups that got no answer (the acquirer down): checked again next time. */
  unanswered: z.number().int().nonnegative(),
  differences: z.array(ReconcileDifference),
});
export type ReconcileReport = z.infer<typeof ReconcileReport>;

export const ReconcileRequest = z.object({
  /** Only what has been pending or uncertain at least this long (ms). */
  olderThanMs: z
    .number()
    .int()
    .min(0)
    .max(30 * 24 * 3600 * 1000)
    .optional(),
  /** At most this many payments and refunds looked up. */
  limit: z.number().int().min(1).max(1000).default(200),
  /** One shop's only. */
  shopId: z.string().optional(),
});
