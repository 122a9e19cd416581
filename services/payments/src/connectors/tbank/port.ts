import type { ProviderRefund, ProviderSavedMethod, ProviderSession } from "@payaccept/contracts";
import { ProviderError, type ProviderOutcome, type ProviderPort, type RefundLedger, type SbpLinks } from "../../provider/port.ts";
import { TBankRefusal, type TBankClient } from "./client.ts";
import { refused, tbankLookups, type Attempt } from "./lookups.ts";
import { methodAfterDecline, wrongStatus } from "./errors.ts";
import { methodRefOf, sessionIdOf, sessionRefOf, type MethodRef, type SessionRef } from "./refs.ts";
import { outcomeOf, sessionStatusOf } from "./states.ts";
import { AddAccountQrReply, CancelReply, InitReply, QrReply, RemoveCardReply, StateReply } from "./wire.ts";

export type TBankPortOptions = {
  client: TBankClient;
  /** Where the bank posts notifications of the payments this connector makes (NotificationURL). */
  notificationUrl: string;
  now: () => number;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
};

/** The bank's limit of a payment's description. */
const DESCRIPTION_MAX = 140;
/** Codes of an issuer that wants the cardholder to authenticate a charge (3-D Secure): the charge becomes the buyer's. */
const AUTHENTICATE = new Set(["106", "108", "1235"]);
/** NSPK's limits on SBP refund attempts (one an hour, five a day): not a decline, a "later". */
const REFUND_LATER = new Set(["3029", "3030", "3041", "3042"]);
/** Bank statuses after which a payment can no longer be paid: a canceled session stays so. */
const UNPAYABLE = new Set(["CANCELED", "DEADLINE_EXPIRED", "ATTEMPTS_EXPIRED", "REJECTED", "AUTH_FAIL"]);

/** RedirectDueDate's format, YYYY-MM-DDTHH24:MI:SS+GMT, in Moscow time as the bank's examples are. */
export function redirectDueDate(ms: number): string {
  return `${new Date(ms + 3 * 3600_000).toISOString().slice(0, 19)}+03:00`;
}

/** What every Init of this connector says: the amount, the OrderId (payments' id), the description, one or two stages. */
const initFields = (orderId: string, r: { amountKopecks: number; description: string | null; hold?: boolean }, notificationUrl: string) => ({
  Amount: r.amountKopecks,
  OrderId: orderId,
  Description: (r.description ?? "").slice(0, DESCRIPTION_MAX) || undefined,
  PayType: r.hold ? "T" : "O",
  NotificationURL: notificationUrl,
});

/**
 * Payments' provider port over T-Bank's Internet Acquiring API v2 (docs/connectors.md, "T-Bank").
 * The bank's Init has no idempotency key and does not enforce a unique OrderId, and Cancel both
 * voids a hold and refunds a confirmed payment: so every operation that could mean something else
 * on a second sending first asks the bank how things stand (GetState, CheckOrder), and a lost
 * answer is looked up, never guessed.
 */
export function tbankPort(opts: TBankPortOptions): ProviderPort {
  const { client, log } = opts;
  const call = client.call;
  const state = (ref: SessionRef) => call("GetState", { PaymentId: ref.paymentId }, StateReply);

  const { history, savedCard, savedAccount } = tbankLookups(client, opts.now);

  /** What a paid or held session saved: the card of its CustomerKey, or the account its binding request bound. */
  async function savedBy(ref: SessionRef, orderId: string, status: string): Promise<ProviderSavedMethod | null> {
    const settled = sessionStatusOf(status);
    if (settled !== "PAID" && settled !== "AUTHORIZED") return null;
    if (ref.method === "SBP") return ref.requestKey === null ? null : savedAccount(ref.requestKey);
    return savedCard(orderId);
  }

  /** A session as the bank has it now, with what it saved and, for a decline, why (CheckOrder keeps each payment's ErrorCode). */
  async function lookup(sessionId: string): Promise<ProviderOutcome> {
    const ref = sessionRefOf(sessionId);
    const s = await guarded(() => state(ref));
    const nowMs = opts.now();
    if (sessionStatusOf(s.Status) === "DECLINED") {
      const errorCode = (await history(s.OrderId)).find((p) => p.PaymentId === ref.paymentId)?.ErrorCode;
      return outcomeOf(sessionId, s, { nowMs, errorCode });
    }
    return outcomeOf(sessionId, s, { nowMs, savedMethod: await savedBy(ref, s.OrderId, s.Status) });
  }

  /** Runs a bank call whose refusals are protocol refusals (PROVIDER_REFUSED). */
  async function guarded<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      throw e instanceof TBankRefusal ? refused(e) : e;
    }
  }

  /**
   * Init for a buyer's session. A lost answer is looked up by the OrderId before anything is sent
   * again: an SBP payment it made is used (its QR can be asked for again); a card payment's
   * PaymentURL cannot be read back, so the lost one is left unpaid (nobody has its URL, it ends at
   * RedirectDueDate) and the buyer is told to try again.
   */
  async function initSession(req: Parameters<ProviderPort["createSession"]>[0]) {
    const save = req.saveMethod === true;
    const params: Record<string, unknown> = {
      ...initFields(req.paymentId, req, opts.notificationUrl),
      Language: "ru",
      SuccessURL: req.returnUrl,
      FailURL: req.returnUrl,
      // A card form closes at the buyer's deadline; a QR may be paid late (the bank's default lifetime).
      ...(req.method === "CARD" ? { RedirectDueDate: redirectDueDate(req.expiresAt) } : {}),
      ...(save ? { Recurrent: "Y", CustomerKey: req.paymentId } : {}),
      DATA: { OperationInitiatorType: save ? "1" : "0" },
    };
    try {
      return await call("Init", params, InitReply);
    } catch (e) {
      if (e instanceof TBankRefusal) throw refused(e);
      if (!(e instanceof ProviderError) || !e.started) throw e;
      const found = (await history(req.paymentId)).filter((p) => p.Status === "NEW" && p.Amount === req.amountKopecks);
      log.warn({ paymentId: req.paymentId, found: found.map((p) => p.PaymentId) }, "T-Bank Init without an answer; looked up by OrderId");
      const usable = req.method === "SBP" ? found.at(-1) : undefined;
      if (!usable) throw e;
      return { PaymentId: usable.PaymentId, Status: usable.Status, Amount: req.amountKopecks, OrderId: req.paymentId, PaymentURL: undefined };
    }
  }

  async function createSession(req: Parameters<ProviderPort["createSession"]>[0]): Promise<ProviderSession> {
    if (req.hold && req.method === "SBP") throw new ProviderError("rejected", "SBP payments cannot be held", "HOLD_NOT_FOR_SBP");
    const init = await initSession(req);
    if (req.method === "CARD") {
      if (!init.PaymentURL) throw new ProviderError("rejected", "T-Bank Init answered without PaymentURL");
      return { sessionId: sessionIdOf({ paymentId: init.PaymentId, method: "CARD", requestKey: null }), method: "CARD", formAction: init.PaymentURL };
    }
    const qr = await guarded(() => call("GetQr", { PaymentId: init.PaymentId, DataType: "PAYLOAD" }, QrReply));
    const requestKey = req.saveMethod && qr.RequestKey !== undefined ? qr.RequestKey : null;
    // The functional link is both the QR's payload and the link that opens the payer's bank app.
    return { sessionId: sessionIdOf({ paymentId: init.PaymentId, method: "SBP", requestKey }), method: "SBP", qrPayload: qr.Data, deepLink: qr.Data };
  }

  /**
   * Makes an open session unpayable. Cancel on a paid or held payment would refund or void it,
   * so the status is read first and only a payment nobody has paid is canceled.
   */
  async function cancelSession(sessionId: string): Promise<void> {
    const ref = sessionRefOf(sessionId);
    const s = await guarded(() => state(ref));
    if (UNPAYABLE.has(s.Status)) return;
    if (s.Status !== "NEW" && s.Status !== "FORM_SHOWED") throw new ProviderError("rejected", `T-Bank payment is ${s.Status}`, "SESSION_ALREADY_PAID");
    const canceled = await guarded(() => call("Cancel", { PaymentId: ref.paymentId }, CancelReply));
    // The bank has no conditional cancel: a payment that completed between the two calls was just returned to the buyer.
    if (sessionStatusOf(canceled.Status) !== "CANCELED")
      log.error({ sessionId, status: canceled.Status }, "a canceled T-Bank session had just been paid; the Cancel returned the money");
  }

  async function refund(sessionId: string, amountKopecks: number, refundId: string, ledger: RefundLedger): Promise<ProviderRefund> {
    const ref = sessionRefOf(sessionId);
    const id = `${ref.paymentId}:${refundId}`;
    if (ref.method === "SBP") {
      // The bank ignores ExternalRequestId for SBP: whether this refund was already made is read from its figures.
      const s = await guarded(() => state(ref));
      if (s.Status === "REFUNDING" || s.Status === "ASYNC_REFUNDING") throw new ProviderError("unavailable", "an SBP refund is still being processed by the bank");
      const refundedAtBank = ledger.paidKopecks - s.Amount;
      if (refundedAtBank >= ledger.refundedKopecks + ledger.refundingKopecks) return { refundId: id, status: "SUCCEEDED", reason: null };
      if (refundedAtBank > ledger.refundedKopecks) throw new ProviderError("unavailable", "the bank has refunded part of the refunds in progress; which one is not known yet");
    }
    try {
      const reply = await call("Cancel", { PaymentId: ref.paymentId, Amount: amountKopecks, ExternalRequestId: refundId }, CancelReply);
      if (reply.Status === "REFUNDED" || reply.Status === "PARTIAL_REFUNDED") return { refundId: id, status: "SUCCEEDED", reason: null };
      throw new ProviderError("unavailable", `T-Bank refund is ${reply.Status}`);
    } catch (e) {
      if (!(e instanceof TBankRefusal)) throw e;
      if (REFUND_LATER.has(e.errorCode)) throw new ProviderError("unavailable", e.message);
      return { refundId: id, status: "FAILED", reason: `tbank_${e.errorCode}` };
    }
  }

  /** The charged method as the bank's decline leaves it (expired, revoked by its issuer), else active. */
  const chargedMethod = (methodId: string, m: MethodRef, errorCode?: string): ProviderSavedMethod => {
    const ended = errorCode ? methodAfterDecline(errorCode) : null;
    return {
      methodId,
      method: m.method,
      status: ended ?? "ACTIVE",
      card: null,
      sbp: null,
      createdAt: new Date(opts.now()).toISOString(),
      revokedAt: ended ? new Date(opts.now()).toISOString() : null,
      revokedBy: ended === "REVOKED" ? "ISSUER" : null,
    };
  };

  /**
   * A charge's outcome from its attempts at the bank (its OrderId is the charge's id), the latest
   * deciding; null when none was sent to the bank (no attempt, or only an Init it never charged).
   */
  function chargeOutcome(attempts: Attempt[], methodId: string, m: MethodRef): ProviderOutcome | null {
    const latest = attempts.at(-1);
    if (!latest) return null;
    const sessionId = sessionIdOf({ paymentId: latest.PaymentId, method: m.method, requestKey: null });
    if (latest.Status === "NEW") {
      // An attempt the bank declined for want of authentication, then a payment for the buyer to
      // authenticate whose link (PaymentURL) was lost with the answer: the charge needs the buyer,
      // who can no longer be sent there; it ends waiting for an authentication nobody can give.
      if (!attempts.some((p) => p.ErrorCode !== undefined && AUTHENTICATE.has(p.ErrorCode))) return null;
      return outcomeOf(sessionId, { Status: "REJECTED", Amount: latest.Amount ?? 0 }, { nowMs: opts.now(), failure: { reason: "AUTHENTICATION_REQUIRED", params: {} } });
    }
    return outcomeOf(
      sessionId,
      { Status: latest.Status, Amount: latest.Amount ?? 0 },
      { nowMs: opts.now(), errorCode: latest.ErrorCode, savedMethod: chargedMethod(methodId, m, latest.ErrorCode) },
    );
  }

  /** The saved method a charge names, decoded; a refusal for an id that is not this connector's. */
  function chargedRef(methodId: string): MethodRef {
    const m = methodRefOf(methodId);
    if (!m) throw new ProviderError("rejected", "not a T-Bank saved method", "METHOD_NOT_FOUND");
    return m;
  }

  async function charge(req: Parameters<ProviderPort["charge"]>[0]): Promise<ProviderOutcome> {
    const m = chargedRef(req.methodId);
    if (req.hold && m.method === "SBP") throw new ProviderError("rejected", "SBP payments cannot be held", "HOLD_NOT_FOR_SBP");
    // The charge's id is its OrderId: what the bank already did for it decides, never a second attempt.
    const attempts = await history(req.chargeId);
    const done = chargeOutcome(attempts, req.methodId, m);
    if (done) return done;
    const paymentId =
      attempts.at(-1)?.PaymentId ??
      (await guarded(() => call("Init", { ...initFields(req.chargeId, req, opts.notificationUrl), DATA: { OperationInitiatorType: "R" } }, InitReply))).PaymentId;
    const sessionId = sessionIdOf({ paymentId, method: m.method, requestKey: null });
    try {
      const reply =
        m.method === "CARD"
          ? await call("Charge", { PaymentId: paymentId, RebillId: m.rebillId }, StateReply)
          : await call("ChargeQr", { PaymentId: paymentId, AccountToken: m.accountToken }, StateReply);
      return outcomeOf(sessionId, reply, { nowMs: opts.now(), savedMethod: chargedMethod(req.methodId, m) });
    } catch (e) {
      if (!(e instanceof TBankRefusal)) throw e;
      if (AUTHENTICATE.has(e.errorCode)) return askBuyer(req, m);
      if (wrongStatus(e.errorCode)) {
        // Charged meanwhile by another driver of the same charge: its outcome is this one's.
        const now = chargeOutcome(await history(req.chargeId), req.methodId, m);
        if (now) return now;
        throw refused(e);
      }
      return outcomeOf(
        sessionId,
        { Status: "REJECTED", Amount: req.amountKopecks },
        { nowMs: opts.now(), errorCode: e.errorCode, savedMethod: chargedMethod(req.methodId, m, e.errorCode) },
      );
    }
  }

  /**
   * The issuer wants the cardholder for this charge: a payment of the same OrderId for the buyer
   * to pay on the bank's page, with its 3-D Secure (the charge's authentication, payUrl links to it).
   */
  async function askBuyer(req: Parameters<ProviderPort["charge"]>[0], m: MethodRef): Promise<ProviderOutcome> {
    const init = await guarded(() =>
      call(
        "Init",
        {
          ...initFields(req.chargeId, req, opts.notificationUrl),
          SuccessURL: req.returnUrl,
          FailURL: req.returnUrl,
          ...(req.expiresAt === undefined ? {} : { RedirectDueDate: redirectDueDate(req.expiresAt) }),
          DATA: { OperationInitiatorType: "0" },
        },
        InitReply,
      ),
    );
    if (!init.PaymentURL) throw new ProviderError("rejected", "T-Bank Init answered without PaymentURL");
    return outcomeOf(sessionIdOf({ paymentId: init.PaymentId, method: m.method, requestKey: null }), init, { nowMs: opts.now(), authenticationUrl: init.PaymentURL });
  }

  /** The hold as the bank has it, for capture and void, which must not mean anything else on a repeat. */
  async function heldState(sessionId: string) {
    const s = await guarded(() => state(sessionRefOf(sessionId)));
    if (s.Status === "CONFIRMING" || s.Status === "CONFIRM_CHECKING" || s.Status === "REVERSING") throw new ProviderError("unavailable", `T-Bank hold is ${s.Status}`);
    return s;
  }

  async function capture(sessionId: string, amountKopecks?: number, reread = false): Promise<ProviderOutcome> {
    const ref = sessionRefOf(sessionId);
    const s = await heldState(sessionId);
    const nowMs = opts.now();
    if (s.Status === "CONFIRMED") {
      if (amountKopecks !== undefined && amountKopecks !== s.Amount)
        throw new ProviderError("rejected", "hold already captured", "HOLD_ALREADY_CAPTURED", { capturedKopecks: s.Amount });
      return outcomeOf(sessionId, s, { nowMs });
    }
    if (s.Status === "REVERSED") throw new ProviderError("rejected", "hold released", "HOLD_VOIDED", { detail: "voided_by_merchant" });
    if (s.Status !== "AUTHORIZED") throw new ProviderError("rejected", `T-Bank payment is ${s.Status}`, "HOLD_NOT_AUTHORIZED", { status: s.Status });
    if (amountKopecks !== undefined && amountKopecks > s.Amount) throw new ProviderError("rejected", "more than held", "CAPTURE_EXCEEDS_HOLD", { heldKopecks: s.Amount });
    const amount = amountKopecks ?? s.Amount;
    try {
      const reply = await call("Confirm", { PaymentId: ref.paymentId, Amount: amount }, StateReply.partial({ Amount: true }));
      return outcomeOf(sessionId, { Status: reply.Status, Amount: amount }, { nowMs });
    } catch (e) {
      if (!(e instanceof TBankRefusal)) throw e;
      // Confirmed (or released) meanwhile: what the bank now has answers this capture, read once more.
      if (wrongStatus(e.errorCode) && !reread) return capture(sessionId, amountKopecks, true);
      throw refused(e);
    }
  }

  async function voidHold(sessionId: string, reread = false): Promise<ProviderOutcome> {
    const ref = sessionRefOf(sessionId);
    const s = await heldState(sessionId);
    const nowMs = opts.now();
    if (s.Status === "REVERSED") return outcomeOf(sessionId, s, { nowMs });
    if (s.Status === "CONFIRMED") throw new ProviderError("rejected", "hold already captured", "HOLD_ALREADY_CAPTURED", { capturedKopecks: s.Amount });
    if (s.Status !== "AUTHORIZED") throw new ProviderError("rejected", `T-Bank payment is ${s.Status}`, "HOLD_NOT_AUTHORIZED", { status: s.Status });
    try {
      const reply = await call("Cancel", { PaymentId: ref.paymentId }, CancelReply);
      if (sessionStatusOf(reply.Status) === "PAID") log.error({ sessionId, status: reply.Status }, "a void met a hold captured a moment before: the bank refunded it");
      return outcomeOf(sessionId, { Status: reply.Status, Amount: reply.NewAmount ?? s.Amount }, { nowMs });
    } catch (e) {
      if (!(e instanceof TBankRefusal)) throw e;
      if (wrongStatus(e.errorCode) && !reread) return voidHold(sessionId, true);
      throw refused(e);
    }
  }

  async function createBinding(req: Parameters<ProviderPort["createBinding"]>[0]): Promise<SbpLinks> {
    const reply = await guarded(() =>
      call(
        "AddAccountQr",
        {
          Description: (req.description ?? req.merchantName ?? "Привязка счёта").slice(0, DESCRIPTION_MAX),
          DataType: "PAYLOAD",
          ...(req.expiresAt === undefined ? {} : { RedirectDueDate: redirectDueDate(req.expiresAt) }),
        },
        AddAccountQrReply,
      ),
    );
    return { sessionId: `binding.${reply.RequestKey}`, method: "SBP", qrPayload: reply.Data, deepLink: reply.Data };
  }

  async function savedMethod(methodId: string): Promise<ProviderSavedMethod | null> {
    const m = methodRefOf(methodId);
    if (!m) return null;
    const found = m.method === "CARD" ? await savedCard(m.customerKey) : await savedAccount(m.requestKey);
    return found && found.methodId === methodId ? found : null;
  }

  async function revokeMethod(methodId: string): Promise<ProviderSavedMethod> {
    const m = methodRefOf(methodId);
    if (!m) throw new ProviderError("rejected", "not a T-Bank saved method", "METHOD_NOT_FOUND");
    const at = new Date(opts.now()).toISOString();
    const revoked: ProviderSavedMethod = { methodId, method: m.method, status: "REVOKED", card: null, sbp: null, createdAt: at, revokedAt: at, revokedBy: "MERCHANT" };
    // The bank has no call that ends an SBP account binding: it ends here, and no ChargeQr is ever sent with it again.
    if (m.method === "SBP") return revoked;
    try {
      await call("RemoveCard", { CustomerKey: m.customerKey, CardId: m.cardId }, RemoveCardReply);
    } catch (e) {
      if (!(e instanceof TBankRefusal)) throw e;
      // Removed already (a repeat), or unknown to the bank: either way nothing can be charged with it there.
      if ((await savedMethod(methodId))?.status === "ACTIVE") throw refused(e);
    }
    return revoked;
  }

  return {
    createSession,
    cancelSession,
    refund,
    session: lookup,
    charge,
    findCharge: async (chargeId, methodId) => chargeOutcome(await history(chargeId), methodId, chargedRef(methodId)),
    capture,
    void: voidHold,
    createBinding,
    savedMethod,
    revokeMethod,
  };
}
