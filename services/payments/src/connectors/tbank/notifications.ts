import { DomainError, invalidRequest, ProviderCallback, ProviderCallbackKnown, type ProviderSavedMethod } from "@payaccept/contracts";
import type { ReadCallback } from "../../provider/callback.ts";
import type { NotificationChannel, StoredSession } from "../connector.ts";
import { cardOf, methodIdOf, sessionIdOf, sessionRefOf } from "./refs.ts";
import { declineReasonOf, HOLD_DAYS_MS } from "./states.ts";
import { tokenMatches } from "./token.ts";
import { LinkAccountNotification, PaymentNotification } from "./wire.ts";

export type TBankNotificationOptions = {
  terminalKey: string;
  password: string;
  /** An SBP account binding by its RequestKey (GetAddAccountQrState), for a payment the payer paid and bound. */
  savedAccount: (requestKey: string) => Promise<ProviderSavedMethod | null>;
};

const signatureInvalid = (detail: string) => new DomainError("CALLBACK_SIGNATURE_INVALID", { detail });

/**
 * The bank's notifications (NotificationURL), read into the provider protocol's callbacks so that
 * payments applies them as it applies the emulator's (app/provider-callback.ts). Each is verified
 * by its Token over the fields as received (constant time) and must name our terminal; it is
 * answered "OK" (the bank's rule: HTTP 200 and exactly OK) only once committed, anything else
 * and the bank sends it again.
 *
 * | bank Status | callback |
 * |---|---|
 * | AUTHORIZED | AUTHORIZED (a hold; payments ignores it for a one-stage payment, whose CONFIRMED follows) |
 * | CONFIRMED | PAID, with the card (RebillId) or SBP account it saved |
 * | REJECTED, ATTEMPTS_EXPIRED | DECLINED, the ErrorCode's reason |
 * | AUTH_FAIL | DECLINED 3ds_failed |
 * | REVERSED | VOIDED |
 * | any other (refunds, CANCELED, DEADLINE_EXPIRED, steps) | acknowledged, changes nothing |
 * | LINKACCOUNT INACTIVE | METHOD_REVOKED of the SBP account (by the payer) |
 */
export function tbankNotifications(opts: TBankNotificationOptions): NotificationChannel {
  async function readPayment(n: PaymentNotification, nowMs: number, stored: StoredSession): Promise<ReadCallback | null> {
    // The session payments keeps names the same bank payment: its id, with what the connector wrote into it.
    const kept = stored.sessionId !== null && sessionRefOf(stored.sessionId).paymentId === n.PaymentId ? stored.sessionId : null;
    const sessionId = kept ?? sessionIdOf({ paymentId: n.PaymentId, method: stored.method ?? "CARD", requestKey: null });
    const base = {
      callbackId: `tbank:${n.PaymentId}:${n.Status}`,
      sessionId,
      merchantPaymentId: n.OrderId,
      paidAt: null,
      reason: null,
      amountKopecks: null,
      holdExpiresAt: null,
      savedMethod: null,
    };
    const saved = async () => {
      const ref = sessionRefOf(sessionId);
      if (ref.method === "SBP") return ref.requestKey === null ? null : opts.savedAccount(ref.requestKey);
      if (n.RebillId === undefined || n.CardId === undefined) return null;
      return {
        methodId: methodIdOf({ method: "CARD", customerKey: n.CustomerKey ?? n.OrderId, cardId: n.CardId, rebillId: n.RebillId }),
        method: "CARD",
        status: "ACTIVE",
        card: cardOf(n.Pan, n.ExpDate),
        sbp: null,
        createdAt: new Date(nowMs).toISOString(),
        revokedAt: null,
        revokedBy: null,
      } satisfies ProviderSavedMethod;
    };
    const at = new Date(nowMs).toISOString();
    switch (n.Status) {
      case "AUTHORIZED":
        return known({ ...base, event: "AUTHORIZED", amountKopecks: n.Amount, holdExpiresAt: new Date(nowMs + HOLD_DAYS_MS).toISOString(), savedMethod: await saved() });
      case "CONFIRMED":
        return known({ ...base, event: "PAID", paidAt: at, amountKopecks: n.Amount, savedMethod: await saved() });
      case "REJECTED":
      case "AUTH_FAIL":
      case "ATTEMPTS_EXPIRED": {
        const { reason, failure } = declineReasonOf(n.Status, n.ErrorCode);
        return { ...known({ ...base, event: "DECLINED", reason }), failure };
      }
      case "REVERSED":
        return known({ ...base, event: "VOIDED", reason: "voided_by_merchant" });
      default:
        return { callback: ProviderCallback.parse({ ...base, event: n.Status }), known: null, failure: null };
    }
  }

  function readLinkAccount(n: LinkAccountNotification, nowMs: number): ReadCallback | null {
    if (n.Status !== "INACTIVE" || n.AccountToken === undefined) return null;
    const at = new Date(nowMs).toISOString();
    const savedMethod: ProviderSavedMethod = {
      methodId: methodIdOf({ method: "SBP", requestKey: n.RequestKey, accountToken: n.AccountToken }),
      method: "SBP",
      status: "REVOKED",
      card: null,
      sbp: { bankName: n.BankMemberName ?? "СБП" },
      createdAt: at,
      revokedAt: at,
      revokedBy: "PAYER",
    };
    // METHOD_REVOKED is applied by the method's id alone: the binding's notification names no payment.
    return known({
      callbackId: `tbank:link:${n.RequestKey}:${n.Status}`,
      sessionId: "",
      merchantPaymentId: "",
      event: "METHOD_REVOKED",
      paidAt: null,
      reason: "method_revoked",
      savedMethod,
    });
  }

  return {
    path: "/provider/tbank/notification",
    async read({ rawBody, nowMs, stored }) {
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        throw new DomainError("MALFORMED_JSON");
      }
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw new DomainError("MALFORMED_JSON");
      const fields = body as Record<string, unknown>;
      if (!tokenMatches(fields, opts.password)) throw signatureInvalid("Token does not match");
      if (fields.TerminalKey !== opts.terminalKey) throw signatureInvalid("another terminal's notification");
      if (fields.NotificationType === "LINKACCOUNT") {
        const link = LinkAccountNotification.safeParse(fields);
        if (!link.success) throw invalidRequest(link.error);
        const read = readLinkAccount(link.data, nowMs);
        return read ? [read] : [];
      }
      // Notifications of other kinds (a card added, a receipt fiscalised) are not payments' business.
      if (typeof fields.NotificationType === "string") return [];
      const payment = PaymentNotification.safeParse(fields);
      if (!payment.success) throw invalidRequest(payment.error);
      const read = await readPayment(payment.data, nowMs, await stored(payment.data.OrderId));
      return read ? [read] : [];
    },
    answer: ({ retry }) => new Response(retry ? "RETRY" : "OK", { status: retry ? 503 : 200, headers: { "Content-Type": "text/plain" } }),
    refusal: (status) => new Response("ERROR", { status, headers: { "Content-Type": "text/plain" } }),
  };
}

/** A callback of a known event, checked against what the event must carry. */
function known(callback: Record<string, unknown>): ReadCallback {
  const k = ProviderCallbackKnown.parse(callback);
  return { callback: ProviderCallback.parse(callback), known: k, failure: null };
}
