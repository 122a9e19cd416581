import { DomainError, type PaymentMethodList, type ProviderSavedMethod, type SavedPaymentMethod } from "@payaccept/contracts";
import { methodChargeable } from "../domain/state-machine.ts";
import { toSavedMethod } from "../domain/views.ts";
import { ProviderError } from "../provider/port.ts";
import type { SavedMethodRow } from "../store/payments-store.ts";
import { recordAction } from "./audit.ts";
import type { PaymentsDeps } from "./deps.ts";

/** A saved method of the shop; another shop's does not exist for it. */
export async function ownedMethod(d: PaymentsDeps, shopId: string, id: string): Promise<SavedMethodRow> {
  const row = await d.methods.byId(id);
  if (!row || row.shopId !== shopId) throw new DomainError("METHOD_NOT_FOUND");
  return row;
}

export const getMethod = async (d: PaymentsDeps, shopId: string, id: string): Promise<SavedPaymentMethod> => toSavedMethod(await ownedMethod(d, shopId, id));

/** The shop's methods, newest first; one more is read than the page holds, to say whether older ones follow. */
export async function listMethods(d: PaymentsDeps, shopId: string, q: { customerId?: string; startingAfter?: string; limit: number }): Promise<PaymentMethodList> {
  const rows = await d.methods.list(shopId, { ...q, limit: q.limit + 1 });
  return { items: rows.slice(0, q.limit).map(toSavedMethod), hasMore: rows.length > q.limit };
}

/**
 * The shop revokes a method: the acquirer first (so that no charge with it can pass there either;
 * when it does not answer nothing changed here, and the caller repeats), then here, for good. No
 * webhook: the caller knows. A method that is not ACTIVE any more is answered as it is.
 */
export async function revokeMethod(d: PaymentsDeps, shopId: string, id: string): Promise<SavedPaymentMethod> {
  const row = await ownedMethod(d, shopId, id);
  if (!methodChargeable(row.status)) return toSavedMethod(row);
  if (row.providerMethodId !== null) {
    try {
      await d.connectors.portOf(row.connector).revokeMethod(row.providerMethodId);
    } catch (e) {
      if (!(e instanceof ProviderError)) throw e;
      if (e.kind === "unavailable") throw new DomainError("PROVIDER_UNAVAILABLE");
      // The acquirer does not know the token: nothing can be charged with it there either.
      if (e.reason !== "METHOD_NOT_FOUND") throw new DomainError("PROVIDER_REFUSED");
    }
  }
  const ended = (await d.methods.end(id, { status: "REVOKED", revokedBy: "MERCHANT", notify: false }, d.now()))!;
  if (ended.ended) recordAction(d, "payment_method.revoked", { type: "payment_method", id }, row, ended.method.deactivatedAt!, { customerId: row.customerId, paymentId: row.paymentId });
  d.log.info({ methodId: id, shopId, status: ended.method.status }, "saved method revoked by the shop");
  return toSavedMethod(ended.method);
}

/**
 * A method the acquirer reports ended (the payer revoked it in the bank app, the bank declined a
 * charge as revoked or expired): ended here too, with its webhook unless the shop itself revoked
 * it. A method still ACTIVE at the acquirer is left alone. Whether it ended now.
 */
export async function endMethodAsProviderSays(d: PaymentsDeps, methodId: string, provider: Pick<ProviderSavedMethod, "status" | "revokedBy">): Promise<boolean> {
  if (provider.status === "ACTIVE") return false;
  const revokedBy = provider.status === "REVOKED" ? (provider.revokedBy ?? "ISSUER") : null;
  const ended = await d.methods.end(methodId, { status: provider.status, revokedBy, notify: revokedBy !== "MERCHANT" }, d.now());
  return ended?.ended ?? false;
}

/** The method sweeper's step: a card whose expiry month is over ends EXPIRED, with its webhook. */
export const expireMethod = async (d: PaymentsDeps, id: string, now: number): Promise<boolean> =>
  (await d.methods.end(id, { status: "EXPIRED", revokedBy: null, notify: true }, now))?.ended ?? false;
