import type { z } from "zod";
import { DomainError, type CheckoutView, type PaymentMethod, type ProviderSession, type SandboxOutcome, type ShopRecord } from "@payaccept/contracts";
import { commissionFor } from "../domain/commission.ts";
import type { PaymentTrigger } from "../domain/state-machine.ts";
import { payUrlOf, toCheckoutView } from "../domain/views.ts";
import type { PaymentRow } from "../store/schema.ts";
import { anyPayment, shopOf, type PaymentsDeps } from "./deps.ts";
import { providerFailure } from "./provider-errors.ts";

/** Buyer side: the payment id in payUrl is the capability, so these are not shop-scoped. */
export async function checkout(d: PaymentsDeps, id: string): Promise<CheckoutView> {
  const row = anyPayment(d, id);
  return toCheckoutView(row, await shopOf(d, row), d.paypageUrl);
}

/**
 * A start that is already done: PENDING with the same method is the buyer reloading the page and
 * gets the current view; any other method is refused.
 */
function currentIfStarted(row: PaymentRow, method: PaymentMethod): boolean {
  if (row.status !== "PENDING") return false;
  if (row.method !== method) throw new DomainError("CONFLICT", `payment is already being paid by ${row.method}`);
  return true;
}

function refuseStart(row: PaymentRow, shop: ShopRecord, method: PaymentMethod, now: number): void {
  if (row.status !== "CREATED") throw new DomainError("CONFLICT", `payment is ${row.status} and cannot be paid`);
  if (row.expiresAt !== null && row.expiresAt <= now) throw new DomainError("CONFLICT", "payment is EXPIRED and cannot be paid");
  if (!shop.active) throw new DomainError("CONFLICT", "the shop is not accepting payments");
  if (!shop.methods.includes(method)) throw new DomainError("CONFLICT", `method ${method} is not available to this shop`);
  if (row.method && row.method !== method) throw new DomainError("CONFLICT", `this payment is to be paid by ${row.method}`);
}

const sessionFields = (s: ProviderSession | null): Partial<PaymentRow> =>
  !s
    ? {}
    : s.method === "SBP"
      ? { providerSessionId: s.sessionId, sbpQrPayload: s.qrPayload, sbpDeepLink: s.deepLink }
      : { providerSessionId: s.sessionId, cardFormAction: s.formAction };

/**
 * CREATED → PENDING with the buyer's method. A live payment first gets its provider session; when
 * the provider is down the payment stays CREATED and the buyer can try again.
 */
export async function startPayment(d: PaymentsDeps, id: string, method: PaymentMethod): Promise<CheckoutView> {
  const row = anyPayment(d, id);
  const shop = await shopOf(d, row);
  if (currentIfStarted(row, method)) return toCheckoutView(row, shop, d.paypageUrl);
  refuseStart(row, shop, method, d.now());
  let session: ProviderSession | null = null;
  if (!row.isTest) {
    try {
      session = await d.provider.createSession({
        paymentId: row.id,
        method,
        amountKopecks: row.amountKopecks,
        description: row.description,
        returnUrl: payUrlOf(d.paypageUrl, row.id),
      });
    } catch (e) {
      providerFailure(e, "the start of the payment");
    }
  }
  const now = d.now();
  const { decision, row: after } = d.repo.transition(id, "start", now, {
    patch: () => ({
      method,
      commissionKopecks: commissionFor(row.amountKopecks, shop.tariff[method]),
      expiresAt: now + d.pendingTtlMs,
      ...sessionFields(session),
    }),
  })!;
  // A concurrent start may have won the race; it is this one's answer if it chose the same method.
  if (decision.kind !== "move" && !currentIfStarted(after, method)) throw new DomainError("CONFLICT", `payment is ${after.status} and cannot be paid`);
  return toCheckoutView(after, shop, d.paypageUrl);
}

const SANDBOX_TRIGGER: Record<z.infer<typeof SandboxOutcome>, PaymentTrigger> = { SUCCESS: "pay", FAILED: "decline", EXPIRED: "expire" };

/** The outcome a tester picks on a sandbox payment page; no provider, no money. */
export async function sandboxOutcome(d: PaymentsDeps, id: string, outcome: z.infer<typeof SandboxOutcome>): Promise<CheckoutView> {
  const row = anyPayment(d, id);
  if (!row.isTest) throw new DomainError("CONFLICT", "only a sandbox payment takes a chosen outcome");
  const now = d.now();
  const { decision, row: after } = d.repo.transition(id, SANDBOX_TRIGGER[outcome], now, {
    onlyFrom: ["PENDING"],
    patch: outcome === "SUCCESS" ? () => ({ paidAt: now }) : undefined,
  })!;
  if (decision.kind === "refused") throw new DomainError("CONFLICT", `payment is ${after.status}; a sandbox outcome needs a PENDING payment`);
  return toCheckoutView(after, await shopOf(d, after), d.paypageUrl);
}
