import { DomainError, type AccountDetails, type AccountDetailsView } from "@payaccept/contracts";
import { moscowDay } from "@payaccept/domain";
import { movePayout, orderNumber } from "./payout-states.ts";
import type { LedgerOps } from "./store/ledger-store.ts";
import type { PaymentOrderRow, PayoutRow, PayoutWithOrder } from "./store/payout-store.ts";

/**
 * The platform's own account payouts are paid from (PAYOUT_PAYER_*): the payer of every payment
 * order, and the account whose bank statement the operator imports.
 */
export type Payer = { name: string; inn: string; kpp: string; account: string; bik: string; bankName: string; correspondentAccount: string };

/** What every rail needs to issue payment orders. */
export type OrderSettings = { payer: Payer | undefined; purposeTemplate: string };

/** The accounts' legal and bank details, asked of the directory (rpcs.directory.detailsOfAccounts). */
export type DetailsOf = (accountIds: readonly string[]) => Promise<Map<string, AccountDetailsView>>;

/** A payment order as a rail hands it to the bank. */
export type PaymentOrderDoc = {
  payoutId: string;
  number: number;
  /** Moscow date, YYYY-MM-DD. */
  date: string;
  amountKopecks: number;
  payer: Payer;
  payee: AccountDetails;
  purpose: string;
  reference: string;
};

/**
 * The reference a payout's order carries in its purpose: "PA-" and the 16 hex digits of the
 * payout id's random part. A statement line, or a bank's return quoting the purpose, names its
 * payout by it; unique like the id (UNIQUE payment_orders.reference besides).
 */
export const referenceOf = (payoutId: string) => `PA-${payoutId.replace(/-/g, "").slice(16).toUpperCase()}`;
export const REFERENCE_PATTERN = /PA-[0-9A-F]{16}/g;

/**
 * The order's purpose (PAYOUT_PURPOSE with {reference}, {date}, {inn}, {recipient} filled): at
 * most the 210 characters a payment order's field holds. The reference is what matches the bank's
 * lines to payouts, so the template must have it (config.ts checks).
 */
export function purposeOf(template: string, o: { reference: string; date: string; payee: AccountDetails }): string {
  const values: Record<string, string> = { reference: o.reference, date: russianDate(o.date), inn: o.payee.inn, recipient: o.payee.payout.recipientName };
  const filled = template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
  return filled.length <= 210 ? filled : filled.slice(0, 210);
}

/** YYYY-MM-DD → DD.MM.YYYY, as payment orders and the exchange format write dates. */
export const russianDate = (day: string) => `${day.slice(8, 10)}.${day.slice(5, 7)}.${day.slice(0, 4)}`;

/** Why a PENDING payout is not sent yet. */
export type Waiting = { payoutId: string; accountId: string; amountKopecks: number; reason: "held" | "noDetails"; until: number | null };

/**
 * The oldest PENDING payouts sorted into those that may be sent now, with their payee's details,
 * and those that wait: the account's payout account was changed within PAYOUT_ACCOUNT_HOLD
 * (until it ends), or it has no details (docs/balance.md, "Payout rails"). Whether the hold still
 * runs is the directory's answer, on its own clock: this host's clock may differ from it.
 */
export async function readyToSend(
  ops: Pick<LedgerOps, "pendingPayouts">,
  detailsOf: DetailsOf,
  limit: number,
): Promise<{ ready: { payout: PayoutRow; payee: AccountDetails }[]; waiting: Waiting[] }> {
  const pending = await ops.pendingPayouts(limit);
  if (pending.length === 0) return { ready: [], waiting: [] };
  const details = await detailsOf([...new Set(pending.map((p) => p.accountId))]);
  const ready: { payout: PayoutRow; payee: AccountDetails }[] = [];
  const waiting: Waiting[] = [];
  for (const payout of pending) {
    const view = details.get(payout.accountId);
    const base = { payoutId: payout.id, accountId: payout.accountId, amountKopecks: payout.amountKopecks };
    if (!view?.details) waiting.push({ ...base, reason: "noDetails", until: null });
    else if (view.payoutsHeldUntil !== null) waiting.push({ ...base, reason: "held", until: view.payoutsHeldUntil });
    else ready.push({ payout, payee: view.details });
  }
  return { ready, waiting };
}

/** The payer, or the refusal that says it is not configured. */
export function payerOf(settings: OrderSettings): Payer {
  if (!settings.payer) throw new DomainError("PAYOUT_PAYER_NOT_CONFIGURED");
  return settings.payer;
}

/** A sent payout's order as a rail hands it to the bank, from what was kept when it was issued. */
export const docOf = ({ payout, order }: { payout: PayoutRow; order: PaymentOrderRow }, payer: Payer): PaymentOrderDoc => ({
  payoutId: payout.id,
  number: orderNumber(order.seq),
  date: order.date,
  amountKopecks: payout.amountKopecks,
  payer,
  payee: order.payee,
  purpose: order.purpose,
  reference: order.reference,
});

/**
 * Sends one payout, inside its account's transaction: PENDING → SENT with its payment order
 * (number, Moscow date, reference, purpose, the payee as they are now), committed with the
 * status and its event. Undefined when the payout is no longer PENDING (another replica sent it).
 */
export async function issueOrder(
  t: LedgerOps,
  ready: { payout: PayoutRow; payee: AccountDetails },
  rail: string,
  settings: OrderSettings,
  now: number,
  batchId: string | null = null,
): Promise<{ sent: PayoutWithOrder; doc: PaymentOrderDoc } | undefined> {
  const payer = payerOf(settings);
  const reference = referenceOf(ready.payout.id);
  const date = moscowDay(now);
  const purpose = purposeOf(settings.purposeTemplate, { reference, date, payee: ready.payee });
  const sent = await movePayout(t, ready.payout.id, "SENT", { at: now }, async () => {
    await t.insertPaymentOrder({ payoutId: ready.payout.id, accountId: ready.payout.accountId, date, reference, rail, batchId, payee: ready.payee, purpose, createdAt: now });
  });
  return sent?.order ? { sent, doc: docOf({ payout: sent.payout, order: sent.order }, payer) } : undefined;
}
