import { DomainError, type CheckoutView, type ConnectorId, type PaymentMethod, type ProviderSession, type ShopRecord } from "@payaccept/contracts";
import { commissionFor } from "../domain/commission.ts";
import { decideStart, type StartDecision } from "../domain/state-machine.ts";
import { payUrlOf, toCheckoutView } from "../domain/views.ts";
import type { PaymentRow } from "../store/payments-store.ts";
import { anyPayment, providerOf, shopOf, type PaymentsDeps } from "./deps.ts";
import { providerFailure } from "./provider-errors.ts";
import { ProviderError } from "../provider/port.ts";

/** The buyer's view, with the card page where the session's connector shows it. */
const viewOf = (d: PaymentsDeps, row: PaymentRow, shop: ShopRecord): CheckoutView =>
  toCheckoutView(row, shop, d.paypageUrl, row.connector !== null && d.connectors.configured(row.connector) && d.connectors.get(row.connector).cardPage === "hosted");

/** Buyer side: the payment id in payUrl is the capability, so these are not shop-scoped. */
export async function checkout(d: PaymentsDeps, id: string): Promise<CheckoutView> {
  const row = await anyPayment(d, id);
  return viewOf(d, row, await shopOf(d, row));
}

/** The buyer's start refused by the state machine, as the buyer's CONFLICT. */
function startRefused(d: Extract<StartDecision, { kind: "refused" }>): DomainError {
  if (d.why === "notPayable") return new DomainError("PAYMENT_NOT_PAYABLE", { status: d.status });
  if (d.why === "expired") return new DomainError("PAYMENT_NOT_PAYABLE", { status: "EXPIRED" });
  return new DomainError("PAYMENT_METHOD_FIXED", { method: d.method });
}

function refuseShop(shop: ShopRecord, method: PaymentMethod): void {
  if (!shop.active) throw new DomainError("SHOP_NOT_ACCEPTING");
  if (!shop.methods.includes(method)) throw new DomainError("METHOD_NOT_AVAILABLE", { method });
}

type Opened = { connector: ConnectorId; session: ProviderSession };

const sessionFields = (opened: Opened | null): Partial<PaymentRow> => {
  if (!opened) return { providerSessionId: null, sbpQrPayload: null, sbpDeepLink: null, cardFormAction: null };
  const { connector, session: s } = opened;
  return s.method === "SBP"
    ? { connector, providerSessionId: s.sessionId, sbpQrPayload: s.qrPayload, sbpDeepLink: s.deepLink, cardFormAction: null }
    : { connector, providerSessionId: s.sessionId, sbpQrPayload: null, sbpDeepLink: null, cardFormAction: s.formAction };
};

/**
 * A provider session for the method (none in a sandbox), at the first of the shop's connectors
 * that takes it (docs/connectors.md, "Routing and failover"); when none does nothing changes and
 * the buyer can try again. `saveMethod`: the buyer agreed to save it (or the shop asks always).
 */
async function openSession(d: PaymentsDeps, row: PaymentRow, shop: ShopRecord, method: PaymentMethod, expiresAt: number, saveMethod: boolean): Promise<Opened | null> {
  if (row.isTest) return null;
  try {
    return await d.connectors.openSession(d.connectors.candidates(shop, method), {
      paymentId: row.id,
      method,
      amountKopecks: row.amountKopecks,
      description: row.description,
      returnUrl: payUrlOf(d.paypageUrl, row.id),
      expiresAt,
      saveMethod,
      hold: row.hold,
      merchantName: shop.name,
    });
  } catch (e) {
    return providerFailure(e);
  }
}

/**
 * The old session of a method switch must not be payable any more, or the buyer could pay twice.
 * The provider refuses to cancel a paid session: then the payment is being completed with the old
 * method and its callback is on the way, so the switch is refused.
 */
async function cancelOldSession(d: PaymentsDeps, row: PaymentRow): Promise<void> {
  if (!row.providerSessionId) return;
  try {
    await providerOf(d, row).cancelSession(row.providerSessionId);
  } catch (e) {
    if (e instanceof ProviderError && e.kind === "rejected") throw new DomainError("PAYMENT_BEING_PAID", { method: row.method! });
    providerFailure(e);
  }
}

/**
 * CREATED → PENDING with the buyer's method, or, while PENDING and not fixed by the merchant, a
 * switch to the other method: the old provider session is canceled first, then a session for the
 * new method opened; the deadline stays the first one. PENDING with the same method is the buyer
 * reloading the page and gets the current view. `saveMethod`: the buyer's answer to saving the
 * method, asked when the merchant wants it saved (the shop's ALWAYS needs no tick: paying agrees).
 */
export async function startPayment(d: PaymentsDeps, id: string, method: PaymentMethod, saveMethod?: boolean): Promise<CheckoutView> {
  const row = await anyPayment(d, id);
  const shop = await shopOf(d, row);
  const start = decideStart(row, method, d.now());
  if (start.kind === "current") return viewOf(d, row, shop);
  if (start.kind === "refused") throw startRefused(start);
  refuseShop(shop, method);
  const switching = start.trigger === "switch";
  const expiresAt = switching ? row.expiresAt! : d.now() + d.pendingTtlMs;
  if (switching && !row.isTest) await cancelOldSession(d, row);
  const consent = row.saveMethod ? saveMethod === true : null;
  const opened = await openSession(d, row, shop, method, expiresAt, row.saveMethod && (consent === true || shop.savedMethodConsent === "ALWAYS"));
  const { decision, row: after } = (await d.repo.transition(id, start.trigger, d.now(), {
    // A concurrent switch or start moved it meanwhile: this one's session is not the payment's.
    onlyIf: (current) => current.providerSessionId === row.providerSessionId && current.method === row.method,
    patch: () => ({ method, commissionKopecks: commissionFor(row.amountKopecks, shop.tariff[method]), expiresAt, saveConsent: consent, ...sessionFields(opened) }),
  }))!;
  if (decision.kind === "move") return viewOf(d, after, shop);
  if (opened && after.providerSessionId !== opened.session.sessionId) {
    const { connector, session } = opened;
    await d.connectors
      .get(connector)
      .port.cancelSession(session.sessionId)
      .catch((err) => d.log.warn({ err, paymentId: id, connector, sessionId: session.sessionId }, "unused provider session not canceled"));
  }
  // A concurrent start may have won the race; it is this one's answer if it chose the same method.
  if (decideStart(after, method, d.now()).kind === "current") return viewOf(d, after, shop);
  throw new DomainError("PAYMENT_NOT_PAYABLE", { status: after.status });
}
