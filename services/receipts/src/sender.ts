import { failure, type Failure } from "@payaccept/contracts";
import { PollingWorker, retryDelayMs, type Logger, type RetryPolicy, type RoundResult } from "@payaccept/platform";
import { saleKey } from "./recording.ts";
import { RegisterCallFailed, type FiscalDocument, type FiscalRegisterPort, type RegisterState } from "./register/port.ts";
import type { ReceiptsRepo } from "./store/receipts-repo.ts";
import type { NewReceiptRow, ReceiptRow } from "./store/schema.ts";

const BATCH = 16;
/** Longest sleep between scans, so rows written by another replica are not left waiting. */
const IDLE_SCAN_MS = 1000;
/** A claimed row is left alone this much longer than one register call may take. */
const LEASE_MARGIN_MS = 5000;
/** How often a refund receipt looks again whether its sale receipt has been registered. */
const SALE_WAIT_MS = 1000;

/**
 * callTimeoutMs bounds one register call; a claimed row is not taken by another replica until it
 * has passed (plus a margin), which is also how long a row waits after a process died holding it.
 */
/** `now`: the store's clock (storeNow), which the lease of a claimed receipt is compared on by every replica. */
export type SenderDeps = { repo: ReceiptsRepo; register: FiscalRegisterPort; policy: RetryPolicy; callTimeoutMs: number; log: Logger; now: () => number };

/** The register's idempotency key: a new document only after the register refused the previous one. */
export const externalIdOf = (row: ReceiptRow) => (row.generation === 0 ? row.id : `${row.id}.${row.generation}`);

function toDocument(row: ReceiptRow): FiscalDocument {
  return {
    externalId: externalIdOf(row),
    kind: row.kind,
    test: row.isTest,
    customer: row.customer,
    taxation: row.taxation,
    items: row.items,
    totalKopecks: row.amountKopecks,
  };
}

/**
 * Works through the receipts that are due (the outbox): sends a PENDING one to the register, asks
 * for the state of a SENT one, until the register confirms or the attempts run out (FAILED). The
 * state lives in the store, so a restart or a kill resumes where the last process stopped, and the
 * register's idempotency by external id makes a repeated send after a crash harmless.
 */
export class ReceiptSender {
  private readonly worker: PollingWorker;

  constructor(private readonly deps: SenderDeps) {
    // A store that is briefly away (a PostgreSQL failover) costs a round, not the sender.
    this.worker = new PollingWorker(() => this.scan(), { idleMs: IDLE_SCAN_MS, now: deps.now }, (err) =>
      deps.log.error({ err }, "receipt sender could not read the store; trying again"),
    );
  }

  start(): void {
    this.worker.start();
  }

  /** Something became due now (a new receipt, a resend): look at once instead of at the next scan. */
  poke(): void {
    this.worker.wake();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  /** One round of claimed attempts, each finished before the round ends. */
  private async scan(): Promise<RoundResult> {
    const now = this.deps.now();
    const claimed = await this.deps.repo.claimDue(now, BATCH, now + this.deps.callTimeoutMs + LEASE_MARGIN_MS);
    await Promise.all(claimed.map((row) => this.attempt(row)));
    return claimed.length === BATCH ? "more" : await this.deps.repo.nextDueAt();
  }

  private async attempt(row: ReceiptRow): Promise<void> {
    const { register, log } = this.deps;
    // A возврат прихода goes after its приход: while the sale receipt is still on its way, the
    // refund waits without spending attempts (a FAILED sale no longer holds it back).
    if (row.kind === "REFUND" && (await this.saleInFlight(row.paymentId))) {
      await this.deps.repo.update(row.id, { nextAttemptAt: this.deps.now() + SALE_WAIT_MS }, this.deps.now());
      return;
    }
    let state: RegisterState;
    try {
      state = row.status === "SENT" && row.registerDocumentId ? await register.state(row.registerDocumentId) : await register.register(toDocument(row));
    } catch (e) {
      if (!(e instanceof RegisterCallFailed)) log.error({ err: e, receiptId: row.id }, "receipt attempt failed unexpectedly");
      await this.retry(row, e instanceof RegisterCallFailed ? e.failure : failure("INTERNAL"), {});
      return;
    }
    if (state.status === "done") {
      const { fiscal } = state;
      await this.deps.repo.update(
        row.id,
        {
          status: "REGISTERED",
          registerDocumentId: state.documentId,
          fiscalDocumentNumber: fiscal.documentNumber,
          fiscalSign: fiscal.fiscalSign,
          fnNumber: fiscal.driveNumber,
          registeredAt: Date.parse(fiscal.registeredAt),
          nextAttemptAt: null,
          lastErrorCode: null,
          lastErrorParams: null,
        },
        this.deps.now(),
      );
      log.info({ receiptId: row.id, paymentId: row.paymentId, kind: row.kind, fiscalDocumentNumber: fiscal.documentNumber }, "receipt registered");
    } else if (state.status === "wait") {
      await this.retry(row, failure("RECEIPT_NOT_FISCALISED_YET"), { status: "SENT", registerDocumentId: state.documentId });
    } else {
      // Refused: that document will never be fiscalised, so the next attempt is a new one.
      await this.retry(row, failure("RECEIPT_REFUSED_BY_REGISTER", { detail: state.error }), { status: "PENDING", generation: row.generation + 1, registerDocumentId: null });
    }
  }

  private async saleInFlight(paymentId: string): Promise<boolean> {
    const sale = await this.deps.repo.statusOf(saleKey(paymentId));
    return sale === "PENDING" || sale === "SENT";
  }

  private async retry(row: ReceiptRow, error: Failure, patch: Partial<NewReceiptRow>): Promise<void> {
    const attempts = row.attempts + 1;
    const now = this.deps.now();
    const delay = retryDelayMs(this.deps.policy, attempts);
    const next = delay === null ? null : now + delay;
    const failed = next === null ? { status: "FAILED" as const } : {};
    await this.deps.repo.update(row.id, { ...patch, attempts, lastErrorCode: error.reason, lastErrorParams: error.params, nextAttemptAt: next, ...failed }, now);
    const fields = { receiptId: row.id, paymentId: row.paymentId, kind: row.kind, attempts, error: error.reason, errorParams: error.params };
    if (next === null) this.deps.log.error(fields, "receipt not registered after its last attempt; an operator can resend it");
    else this.deps.log.warn({ ...fields, retryInMs: next - now }, "receipt not registered yet; will retry");
  }
}
