import { failure } from "@payaccept/contracts";
import { PollingWorker, type Logger, type RetryPolicy, type RoundResult } from "@payaccept/platform";
import { applyCallFailure, applyState, toDocument, type OutcomeDeps } from "./outcome.ts";
import { saleKey } from "./recording.ts";
import { RegisterCallFailed, type FiscalRegisterPort, type RegisterState } from "./register/port.ts";
import type { ReceiptsStore } from "./store/receipts-store.ts";
import type { ReceiptRow } from "./store/schema.ts";

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
 * `now`: the store's clock (storeNow), which the lease of a claimed receipt is compared on by every replica.
 */
export type SenderDeps = { store: ReceiptsStore; register: FiscalRegisterPort; policy: RetryPolicy; callTimeoutMs: number; log: Logger; now: () => number };

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
    const claimed = await this.deps.store.claimDue(now, BATCH, now + this.deps.callTimeoutMs + LEASE_MARGIN_MS);
    await Promise.all(claimed.map((row) => this.attempt(row)));
    return claimed.length === BATCH ? "more" : await this.deps.store.nextDueAt();
  }

  private async attempt(row: ReceiptRow): Promise<void> {
    const { register, log } = this.deps;
    const outcome: OutcomeDeps = this.deps;
    // A возврат прихода goes after its приход: while the sale receipt is still on its way, the
    // refund waits without spending attempts (a FAILED sale no longer holds it back).
    if (row.kind === "REFUND" && (await this.saleInFlight(row.paymentId))) {
      await this.deps.store.updateIfCurrent(row.id, row.generation, { nextAttemptAt: this.deps.now() + SALE_WAIT_MS }, this.deps.now());
      return;
    }
    const doc = toDocument(row);
    let state: RegisterState;
    try {
      state = row.status === "SENT" && row.registerDocumentId ? await register.state(row.registerDocumentId, doc) : await register.register(doc);
    } catch (e) {
      if (!(e instanceof RegisterCallFailed)) log.error({ err: e, receiptId: row.id }, "receipt attempt failed unexpectedly");
      await applyCallFailure(outcome, row, e instanceof RegisterCallFailed ? e.failure : failure("INTERNAL"));
      return;
    }
    await applyState(outcome, row, state, "attempt");
  }

  private async saleInFlight(paymentId: string): Promise<boolean> {
    const sale = await this.deps.store.statusOf(saleKey(paymentId));
    return sale === "PENDING" || sale === "SENT";
  }
}
