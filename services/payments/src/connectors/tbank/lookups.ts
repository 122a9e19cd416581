import type { ProviderSavedMethod } from "@payaccept/contracts";
import { ProviderError } from "../../provider/port.ts";
import { TBankRefusal, type TBankClient } from "./client.ts";
import { orderUnknown } from "./errors.ts";
import { cardOf, methodIdOf } from "./refs.ts";
import { AccountQrStateReply, CardList, CheckOrderReply } from "./wire.ts";

/** A refusal of the bank where the operation cannot mean one: the protocol's PROVIDER_REFUSED. */
export const refused = (e: TBankRefusal) => new ProviderError("rejected", e.message);

export type Attempt = { PaymentId: string; Amount?: number; Status: string; ErrorCode?: string };

/** The bank's reads the port and the notifications share: an OrderId's payments, a saving payment's card, an account binding. */
export function tbankLookups(client: TBankClient, now: () => number) {
  const call = client.call;
  /** The bank's payments of an OrderId, oldest first ([] for one it never saw). */
  async function history(orderId: string): Promise<Attempt[]> {
    try {
      return (await call("CheckOrder", { OrderId: orderId }, CheckOrderReply)).Payments;
    } catch (e) {
      if (e instanceof TBankRefusal && orderUnknown(e.errorCode)) return [];
      throw e instanceof TBankRefusal ? refused(e) : e;
    }
  }

  /** The card a saving payment left (CustomerKey = the payment's OrderId), as a saved method. */
  async function savedCard(customerKey: string): Promise<ProviderSavedMethod | null> {
    let cards;
    try {
      cards = await call("GetCardList", { CustomerKey: customerKey }, CardList);
    } catch (e) {
      // No such customer: the payment saved nothing.
      if (e instanceof TBankRefusal) return null;
      throw e;
    }
    const card = cards.find((c) => c.RebillId !== undefined);
    if (!card) return null;
    return {
      methodId: methodIdOf({ method: "CARD", customerKey, cardId: card.CardId, rebillId: card.RebillId! }),
      method: "CARD",
      status: card.Status === "A" ? "ACTIVE" : "REVOKED",
      card: cardOf(card.Pan, card.ExpDate),
      sbp: null,
      createdAt: new Date(now()).toISOString(),
      revokedAt: card.Status === "A" ? null : new Date(now()).toISOString(),
      revokedBy: card.Status === "A" ? null : "MERCHANT",
    };
  }

  /** An SBP account binding by its RequestKey, as a saved method; null while the payer has not bound. */
  async function savedAccount(requestKey: string): Promise<ProviderSavedMethod | null> {
    let s;
    try {
      s = await call("GetAddAccountQrState", { RequestKey: requestKey }, AccountQrStateReply);
    } catch (e) {
      if (e instanceof TBankRefusal) return null;
      throw e;
    }
    if (!s.AccountToken || (s.Status !== "ACTIVE" && s.Status !== "INACTIVE")) return null;
    const active = s.Status === "ACTIVE";
    return {
      methodId: methodIdOf({ method: "SBP", requestKey, accountToken: s.AccountToken }),
      method: "SBP",
      status: active ? "ACTIVE" : "REVOKED",
      card: null,
      sbp: { bankName: s.BankMemberName ?? "СБП" },
      createdAt: new Date(now()).toISOString(),
      revokedAt: active ? null : new Date(now()).toISOString(),
      revokedBy: active ? null : "PAYER",
    };
  }

  return { history, savedCard, savedAccount };
}
