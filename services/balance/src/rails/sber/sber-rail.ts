import type { Logger } from "@payaccept/platform";
import { docOf, issueOrder, payerOf, readyToSend, type DetailsOf, type OrderSettings } from "../../payment-orders.ts";
import { movePayout } from "../../payout-states.ts";
import type { LedgerStore } from "../../store/ledger-store.ts";
import type { PayoutWithOrder } from "../../store/payout-store.ts";
import { SberGrantRefused, SberRefused, SberUnauthorized, sberPaymentOf, type SberApi, type SberState } from "./sber-api.ts";

export const SBER_RAIL = "sber";

/**
 * The bank's state model of a ruble payment order («Получение статуса рублевого платежного
 * поручения»): IMPLEMENTED is executed (the money left the platform's account); these final
 * statuses mean it never will be. Every other status (CREATED: the draft waits for its signature,
 * ACCEPTED, DELIVERED, EXPORTED, CARD2…) is a stage on the way: the payout stays SENT and is asked
 * about again. A status the table does not list is treated as a stage too, never as a refusal:
 * giving the money back for an order the bank may still execute would pay it twice.
 */
const EXECUTED = "IMPLEMENTED";
const REFUSED: ReadonlySet<string> = new Set(["DELETED", "INVALIDEDS", "RECALL", "REFUSEDBYBANK", "REFUSEDBYABS", "REQUISITEERROR", "REFUSED_BY_RZK", "FRAUDDENY"]);

/** An access token this close to its end is refreshed rather than used. */
const TOKEN_MARGIN_MS = 60_000;
const PAGE = 100;

export type SberRailDeps = {
  api: SberApi;
  detailsOf: DetailsOf;
  settings: OrderSettings;
  now: () => number;
  log: Logger;
  /** How long one pass may hold the rail; it starts no call past half of it. */
  leaseMs: number;
};

export type SberPass = { sent: number; submitted: number; paid: number; failed: number };

/**
 * One pass of the Sber rail (docs/balance.md, "Sber's API"), by the one replica that holds the
 * rail's lease (null: another does). PENDING payouts that may go become SENT with their payment
 * orders; then every SENT order of the rail, oldest first: one the bank has not confirmed is asked
 * about and made only if the bank has none of its id (the payout id is the order's externalId, so
 * a lost answer never makes two drafts); one it has is asked for its state, and IMPLEMENTED makes
 * it PAID, a final refusal FAILED with the money back. A call the bank did not answer ends the
 * pass; the next one picks up where this left off.
 */
export async function runSberRail(store: LedgerStore, deps: SberRailDeps): Promise<SberPass | null> {
  const start = deps.now();
  const until = start + deps.leaseMs;
  if (!(await store.leaseRail(SBER_RAIL, start, until))) return null;
  try {
    return await pass(store, deps, start + deps.leaseMs / 2);
  } finally {
    await store.releaseRail(SBER_RAIL, until);
  }
}

async function pass(store: LedgerStore, deps: SberRailDeps, stopAt: number): Promise<SberPass> {
  const { api, log } = deps;
  const payer = payerOf(deps.settings);
  const done: SberPass = { sent: 0, submitted: 0, paid: 0, failed: 0 };
  // First the token: without one nothing is sent, and PENDING payouts wait rather than go SENT unseen.
  const token = await accessToken(store, api, deps.now());

  const { ready } = await readyToSend(store, deps.detailsOf, PAGE);
  for (const r of ready) {
    if (await store.tx(r.payout.accountId, (t) => issueOrder(t, r, SBER_RAIL, deps.settings, deps.now()))) done.sent++;
  }

  const move = (p: PayoutWithOrder, to: "PAID" | "FAILED", failureReason?: string) =>
    store.tx(p.payout.accountId, (t) => movePayout(t, p.payout.id, to, { at: deps.now(), failureReason }));
  try {
    for (let after = 0, more = true; more && deps.now() < stopAt; ) {
      const page = await store.sentOnRail(SBER_RAIL, PAGE, after);
      more = page.length === PAGE;
      after = page.at(-1)?.order?.seq ?? after;
      for (const p of page) {
        if (deps.now() >= stopAt) break;
        const id = p.payout.id;
        let state = await api.paymentState(token, id);
        if (p.order!.submittedAt === null) {
          if (!state) {
            try {
              await api.createPayment(token, sberPaymentOf(docOf({ payout: p.payout, order: p.order! }, payer), id));
            } catch (e) {
              if (!(e instanceof SberRefused)) throw e;
              // Refused, unless the bank has the order after all (an attempt whose answer was lost made it).
              if (!(await api.paymentState(token, id))) {
                if (await move(p, "FAILED", `${e.fault}: ${e.detail}`.slice(0, 500))) done.failed++;
                log.warn({ payoutId: id, status: e.status, fault: e.fault, detail: e.detail }, "Sber refused the payment order");
                continue;
              }
            }
          }
          await store.markSubmitted(id, deps.now());
          done.submitted++;
          if (!state) continue;
        }
        if (!state) {
          log.warn({ payoutId: id }, "Sber has no payment order of a payout it took: the operator looks it up in SberBusiness");
          continue;
        }
        const outcome = outcomeOf(state);
        if (outcome === "PAID" && (await move(p, "PAID"))) done.paid++;
        if (outcome === "FAILED" && (await move(p, "FAILED", reasonOf(state)))) done.failed++;
      }
    }
  } catch (e) {
    // The bank no longer takes this access token: the next pass refreshes it.
    if (e instanceof SberUnauthorized) await store.dropAccessToken(SBER_RAIL, token);
    throw e;
  }
  return done;
}

export function outcomeOf(state: SberState): "PAID" | "FAILED" | null {
  if (state.bankStatus === EXECUTED) return "PAID";
  return REFUSED.has(state.bankStatus) ? "FAILED" : null;
}

const reasonOf = (s: SberState) => (s.bankComment ? `${s.bankStatus}: ${s.bankComment}` : s.bankStatus).slice(0, 500);

/**
 * The access token, refreshed when it is about to end. The refreshed pair is kept before it is
 * used: the bank retired the old refresh token when it answered (keeping it as a reserve for two
 * hours, so a pair lost to a crash right here is made again from it by the next pass).
 */
async function accessToken(store: LedgerStore, api: SberApi, now: number): Promise<string> {
  const kept = await store.bankTokens(SBER_RAIL);
  if (!kept) throw new SberGrantRefused("no refresh token kept: set SBER_REFRESH_TOKEN");
  if (kept.accessToken !== null && (kept.accessExpiresAt ?? 0) > now + TOKEN_MARGIN_MS) return kept.accessToken;
  const pair = await api.refresh(kept.refreshToken, now);
  await store.saveBankTokens(SBER_RAIL, kept.refreshToken, pair, now);
  return pair.accessToken;
}
