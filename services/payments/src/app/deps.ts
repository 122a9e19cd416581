import { DomainError, type AuditActor, type RpcRequest, type rpcs, type ShopRecord } from "@payaccept/contracts";
import { linkTrace, type AuditFields, type RequestLog } from "@payaccept/platform";
import type { Connectors } from "../connectors/connectors.ts";
import type { ChargeOutcomes } from "./charge-outcomes.ts";
import type { ProviderPort } from "../provider/port.ts";
import type { IdempotencyKeysRepo, NewPayment, PaymentRow, PaymentsRepo, RefundsRepo, SavedMethodsRepo } from "../store/payments-store.ts";

/** The balance service's refund hold, as payments uses it (rpcs.balance.reserveRefund). */
export type BalancePort = {
  /** requestId: the API request being served, passed on to balance's log lines. */
  reserveRefund(req: RpcRequest<typeof rpcs.balance.reserveRefund>, requestId?: string): Promise<{ reserved: boolean }>;
};

/** Everything the use cases need, passed in so they run the same under tests and in main. */
export type PaymentsDeps = {
  repo: PaymentsRepo;
  /** The Idempotency-Keys of creates, and the marks of the gateway's other keys. */
  keys: IdempotencyKeysRepo;
  refunds: RefundsRepo;
  methods: SavedMethodsRepo;
  /** How long a refund's driver has before the refund sweeper may drive it again. */
  refundLeaseMs: number;
  /** How long a live charge's driver has before the charge sweeper may drive it again. */
  chargeLeaseMs: number;
  /** A shop's directory record; in the service, DirectoryCache.shopOrRead. */
  shops: { shop(shopId: string): Promise<ShopRecord | undefined> };
  /** The acquirers this deployment configured, with routing and health (docs/connectors.md). */
  connectors: Connectors;
  /** The charges' outcomes this process committed, until the acquirer's second report of each. */
  chargeOutcomes: ChargeOutcomes;
  balance: BalancePort;
  /** The service's logger, or while serving a request its RequestLog (every line with the request id). */
  log: Pick<RequestLog, "info" | "warn" | "error">;
  /** While serving an API request: its X-Request-Id, written into the events it causes. */
  requestId?: string;
  /** While serving a call: its id (platform's callIdOf), the same on every copy of the call. */
  callId?: string;
  /**
   * While serving a call: how long, from now, it may wait for the outcome of work that an earlier
   * copy or repeat of it began (platform's improveWithinMs and copies.ts); absent otherwise.
   */
  repeatWaitMs?: () => number;
  /** While serving a call: who it was made for (platform's actorOf), for the audit log. */
  actor?: AuditActor;
  /** The audit log (platform's AuditTrail): refunds are recorded in their requester's name. */
  audit: { record(fields: AuditFields): void };
  now: () => number;
  paypageUrl: string;
  createdTtlMs: number;
  pendingTtlMs: number;
  /** How long a hold waits for its capture (the capture deadline after authorisation). */
  captureTtlMs: number;
  /** What a reconciliation looks up by default: pending or uncertain at least this long. */
  reconcileAfterMs: number;
};

/** What a create's kind (a buyer's payment, a charge) decides: its method and commission, and the fields of its feature. */
export type CreateTerms = Pick<NewPayment, "method" | "commissionKopecks"> & Partial<NewPayment>;

export const paymentNotFound = () => new DomainError("PAYMENT_NOT_FOUND");

/**
 * The current span works on this payment: it carries the payment's id and links to the trace of
 * its create, so that one search by the id finds the payment's whole life (docs/observability.md, "Traces").
 */
export const tracePayment = (row: Pick<PaymentRow, "id" | "traceContext">): void => linkTrace(row.traceContext, { "payaccept.payment.id": row.id });

/** The payment, if it belongs to the shop; another shop's payment does not exist for it (§5.1). */
export async function ownedPayment(d: PaymentsDeps, shopId: string, id: string): Promise<PaymentRow> {
  const row = await d.repo.byId(id);
  if (!row || row.shopId !== shopId) throw paymentNotFound();
  tracePayment(row);
  return row;
}

export async function anyPayment(d: PaymentsDeps, id: string): Promise<PaymentRow> {
  const row = await d.repo.byId(id);
  if (!row) throw paymentNotFound();
  tracePayment(row);
  return row;
}

/** The provider port of the connector the payment's session lives at (every call after the first goes there). */
export const providerOf = (d: PaymentsDeps, row: Pick<PaymentRow, "connector">): ProviderPort => d.connectors.portOf(row.connector);

/** The shop a payment belongs to; payments are only ever created for shops in the directory. */
export async function shopOf(d: PaymentsDeps, row: PaymentRow): Promise<ShopRecord> {
  const shop = await d.shops.shop(row.shopId);
  if (!shop) throw new DomainError("SHOP_NOT_IN_DIRECTORY");
  return shop;
}
