import { beforeEach } from "bun:test";
import type { JetStreamClient, PubAck } from "@nats-io/jetstream";
import { AccountDetailsInput, paymentEventId, paymentEventSubject, refundEventId, refundEventSubject, type AccountDetails, type PaymentEvent, type RefundEvent } from "@payaccept/contracts";
import type { DetailsOf, Payer } from "./payment-orders.ts";
import { applyPaymentEvent } from "./ledger.ts";
import type { RefundHoldRequest } from "./refunds.ts";
import { repositoriesPerFile, type Engine } from "../../../tests/harness/engines.ts";
import type { LedgerStore } from "./store/ledger-store.ts";
import { openLedgerStore } from "./store/open-ledger-store.ts";

export { ENGINES } from "../../../tests/harness/engines.ts";

/**
 * Fresh ledgers on `engine` for the calling file (a new SQLite file, or a new schema of the file's
 * throwaway PostgreSQL, each call): `const ledgers = ledgersPerFile()`, then `await ledgers.open(engine)`.
 */
export function ledgersPerFile(): {
  open: (engine: Engine) => Promise<LedgerStore>;
  /** Two stores on one ledger, as two replicas on two hosts would have (on SQLite, one store: tests/balance-stack.test.ts runs SQLite replicas as processes). */
  replicas: (engine: Engine) => Promise<[LedgerStore, LedgerStore]>;
} {
  const { open, replicas } = repositoriesPerFile((choice) => openLedgerStore(choice), "balance.db");
  return { open, replicas };
}

/** A fresh ledger on `engine` for each test of the calling describe block: `ledger.store`. */
export function ledgerPerTest(engine: Engine): { readonly store: LedgerStore } {
  const ledgers = ledgersPerFile();
  const current = { store: undefined as unknown as LedgerStore };
  beforeEach(async () => {
    current.store = await ledgers.open(engine);
  });
  return current;
}

/** A live SUCCESS event as payments publishes it; override what the case is about. */
export function paymentEvent(overrides: Partial<PaymentEvent> = {}): PaymentEvent {
  const paidAt = overrides.paidAt ?? "2025-03-10T07:00:00.000Z";
  const event: PaymentEvent = {
    eventId: "",
    paymentId: Bun.randomUUIDv7(),
    shopId: "shop-1",
    accountId: "account-1",
    orderId: "order-1",
    status: "SUCCESS",
    previousStatus: "PENDING",
    amountKopecks: 10_000,
    commissionKopecks: 70,
    method: "SBP",
    telegramId: null,
    metadata: null,
    isTest: false,
    paidAt,
    createdAt: paidAt,
    occurredAt: paidAt,
    ...overrides,
  };
  return { ...event, eventId: paymentEventId(event.paymentId, event.status) };
}

/** A refund hold on `paid`'s receipt as payments asks for it: with the payment's SUCCESS as its event credits it. */
export function holdOf(paid: PaymentEvent, amountKopecks: number, refundId: string = Bun.randomUUIDv7()): RefundHoldRequest {
  const { shopId, commissionKopecks, occurredAt } = paid;
  const credit = { shopId, amountKopecks: paid.amountKopecks, commissionKopecks, paidAt: paid.paidAt ?? occurredAt, occurredAt };
  return { refundId, accountId: paid.accountId, paymentId: paid.paymentId, amountKopecks, credit };
}

/** The same payment's later event (REFUNDED after SUCCESS, SUCCESS after EXPIRED, ...). */
export function nextEvent(earlier: PaymentEvent, status: PaymentEvent["status"], occurredAt: string): PaymentEvent {
  return { ...earlier, eventId: paymentEventId(earlier.paymentId, status), status, previousStatus: earlier.status, occurredAt };
}

/** The end of a refund of `paid` as payments publishes it: `balanceKopecks` is what it takes from the balance. */
export function refundEvent(
  paid: PaymentEvent,
  r: { refundId: string; balanceKopecks: number; status: RefundEvent["status"]; at: number; amountKopecks?: number },
): RefundEvent {
  const amountKopecks = r.amountKopecks ?? paid.amountKopecks;
  return {
    eventId: refundEventId(r.refundId),
    refundId: r.refundId,
    paymentId: paid.paymentId,
    shopId: paid.shopId,
    accountId: paid.accountId,
    orderId: paid.orderId,
    status: r.status,
    amountKopecks,
    balanceKopecks: r.balanceKopecks,
    refundedTotalKopecks: r.status === "SUCCEEDED" ? amountKopecks : 0,
    paymentAmountKopecks: paid.amountKopecks,
    isTest: paid.isTest,
    reason: null,
    failureReason: r.status === "FAILED" ? "the acquirer declined the refund: refund_declined" : null,
    occurredAt: new Date(r.at).toISOString(),
  };
}

/** Epoch ms of a Moscow wall-clock time, e.g. msk("2025-03-11T12:00:00"). */
export const msk = (local: string) => Date.parse(`${local}+03:00`);

/** Gives an account `kopecks` of available money: a live receipt paid three days before `now`. */
export async function fundAccount(store: LedgerStore, accountId: string, kopecks: number, now: number): Promise<PaymentEvent> {
  const paidAt = new Date(now - 3 * 86_400_000).toISOString();
  const event = paymentEvent({ accountId, paidAt, amountKopecks: kopecks, commissionKopecks: 0 });
  await applyPaymentEvent(store, event, now);
  return event;
}

/** What fn threw or rejected with (undefined if it returned), to assert on an error's code and message together. */
export async function thrownBy(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

/** Publishes an event as the payments outbox relay does: subject by status, Nats-Msg-Id <paymentId>:<status> unless given. */
export function publishPaymentEvent(js: JetStreamClient, event: PaymentEvent, msgID = event.eventId): Promise<PubAck> {
  return js.publish(paymentEventSubject(event.status), JSON.stringify(event), { msgID, timeout: 5000 });
}

/** Publishes a refund's end as the payments outbox relay does: subject by status, Nats-Msg-Id refund:<refundId>. */
export function publishRefundEvent(js: JetStreamClient, event: RefundEvent): Promise<PubAck> {
  return js.publish(refundEventSubject(event.status), JSON.stringify(event), { msgID: event.eventId, timeout: 5000 });
}

/** The details of an account as the directory keeps them: a company paid at Sberbank (its published numbers, an account with a valid key). */
export const PAYEE: AccountDetails = AccountDetailsInput.parse({
  legalForm: "company",
  name: "ООО «Ромашка»",
  inn: "7707083893",
  ogrn: "1027700132195",
  kpp: "773601001",
  payout: { bik: "044525225", bankName: "ПАО Сбербанк", correspondentAccount: "30101810400000000225", account: "40702810938000000001", recipientName: "ООО «Ромашка»" },
});

/** The platform's own account payouts are paid from, at T-Bank (its correspondent account; an account whose key matches). */
export const PAYER: Payer = {
  name: "ООО «Платёжный агрегатор»",
  inn: "7736207543",
  kpp: "773601001",
  account: "40702810500000012345",
  bik: "044525974",
  bankName: "АО «ТБанк»",
  correspondentAccount: "30101810145250000974",
};

/** The platform's own account in the payer's variables (PAYOUT_PAYER_*), as a balance that sends payouts is configured. */
export const PAYER_ENV = {
  PAYOUT_PAYER_NAME: PAYER.name,
  PAYOUT_PAYER_INN: PAYER.inn,
  PAYOUT_PAYER_KPP: PAYER.kpp,
  PAYOUT_PAYER_ACCOUNT: PAYER.account,
  PAYOUT_PAYER_BIK: PAYER.bik,
  PAYOUT_PAYER_CORR_ACCOUNT: PAYER.correspondentAccount,
  PAYOUT_PAYER_BANK: PAYER.bankName,
};

/**
 * The directory's answer for accounts with these details, held until `heldUntil` as the directory
 * answers it: the moment while it is still ahead of the directory's clock `directoryNow`, else null.
 */
export const detailsFor =
  (details: Record<string, { details: AccountDetails | null; heldUntil?: number | null }>, directoryNow = Date.now()): DetailsOf =>
  async (ids) =>
    new Map(
      ids
        .filter((id) => details[id])
        .map((id) => [id, { accountId: id, details: details[id]!.details, payoutAccountChangedAt: 0, payoutsHeldUntil: (details[id]!.heldUntil ?? 0) > directoryNow ? details[id]!.heldUntil! : null, updatedAt: 0 }]),
    );
