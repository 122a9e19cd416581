import { DomainError, type CheckoutView, type PaymentMethod, type ProviderSession, type ShopRecord } from "@payaccept/contracts";
import { commissionFor } from "../domain/commission.ts";
import { decideStart, type StartDecision } from "../domain/state-machine.ts";
import { payUrlOf, toCheckoutView } from "../domain/views.ts";
import type { PaymentRow } from "../store/payments-store.ts";
import { anyPayment, shopOf, type PaymentsDeps } from "./deps.ts";
import { providerFailure } from "./provider-errors.ts";
import { ProviderError } from "../provider/port.ts";

/** Buyer side: the payment id in payUrl is the capability, so these are not shop-scoped. */
export async function checkout(d: PaymentsDeps, id: string): Promise<CheckoutView> {
  const row = await anyPayment(d, id);
  return toCheckoutView(row, await shopOf(d, row), d.paypageUrl);
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

const sessionFields = (s: ProviderSession | null): Partial<PaymentRow> =>
  !s
    ? { providerSessionId: null, sbpQrPayload: null, sbpDeepLink: null, cardFormAction: null }
    : s.method === "SBP"
      ? { providerSessionId: s.sessionId, sbpQrPayload: s.qrPayload, sbpDeepLink: s.deepLink, cardFormAction: null }
      : { providerSessionId: s.sessionId, sbpQrPayload: null, sbpDeepLink: null, cardFormAction: s.formAction };

/**
 * A provider session for the method (none in a sandbox); when the provider is down nothing changes
 * and the buyer can try again. `saveMethod`: the buyer agreed to save it (or the shop asks always).
 */
async function openSession(d: PaymentsDeps, row: PaymentRow, shop: ShopRecord, method: PaymentMethod, expiresAt: number, saveMethod: boolean): Promise<ProviderSession | null> {
  if (row.isTest) return null;
  try {
    return await d.provider.createSession({
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
    await d.provider.cancelSession(row.providerSessionId);
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
  if (start.kind === "current") return toCheckoutView(row, shop, d.paypageUrl);
  if (start.kind === "refused") throw startRefused(start);
  refuseShop(shop, method);
  const switching = start.trigger === "switch";
  const expiresAt = switching ? row.expiresAt! : d.now() + d.pendingTtlMs;
  if (switching && !row.isTest) await cancelOldSession(d, row);
  const consent = row.saveMethod ? saveMethod === true : null;
  const session = await openSession(d, row, shop, method, expiresAt, row.saveMethod && (consent === true || shop.savedMethodConsent === "ALWAYS"));
  const { decision, row: after } = (await d.repo.transition(id, start.trigger, d.now(), {
    // A concurrent switch or start moved it meanwhile: this one's session is not the payment's.
    onlyIf: (current) => current.providerSessionId === row.providerSessionId && current.method === row.method,
    patch: () => ({ method, commissionKopecks: commissionFor(row.amountKopecks, shop.tariff[method]), expiresAt, saveConsent: consent, ...sessionFields(session) }),
  }))!;
  if (decision.kind === "move") return toCheckoutView(after, shop, d.paypageUrl);
  if (session && after.providerSessionId !== session.sessionId) {
    await d.provider.cancelSession(session.sessionId).catch((err) => d.log.warn({ err, paymentId: id, sessionId: session.sessionId }, "unused provider session not canceled"));
  }
  // A concurrent start may have won the race; it is this one's answer if it chose the same method.
  if (decideStart(after, method, d.now()).kind === "current") return toCheckoutView(after, shop, d.paypageUrl);
  throw new DomainError("PAYMENT_NOT_PAYABLE", { status: after.status });
}
