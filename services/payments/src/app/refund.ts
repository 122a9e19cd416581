import { DomainError, type Payment } from "@payaccept/contracts";
import { ProviderError } from "../provider/port.ts";
import { toPayment } from "../domain/views.ts";
import type { PaymentRow } from "../store/schema.ts";
import { ownedPayment, type PaymentsDeps } from "./deps.ts";
import { providerFailure } from "./provider-errors.ts";

/**
 * Full refund of a SUCCESS payment. Sandbox: at once. Live: reserve the net receipt on the
 * account's balance, have the provider return the money, then SUCCESS → REFUNDED with its event.
 * A repeat on a REFUNDED payment returns it unchanged.
 */
export async function refundPayment(d: PaymentsDeps, shopId: string, id: string): Promise<Payment> {
  const row = ownedPayment(d, shopId, id);
  if (row.status === "REFUNDED") return toPayment(row, d.paypageUrl);
  if (row.status !== "SUCCESS") throw new DomainError("CONFLICT", `only a SUCCESS payment can be refunded; this one is ${row.status}`);
  if (!row.isTest) await refundWithProvider(d, row);
  const { decision, row: after } = d.repo.transition(id, "refund", d.now(), { requestId: d.requestId })!;
  if (decision.kind === "refused") throw new DomainError("CONFLICT", `only a SUCCESS payment can be refunded; this one is ${after.status}`);
  return toPayment(after, d.paypageUrl);
}

async function refundWithProvider(d: PaymentsDeps, row: PaymentRow): Promise<void> {
  if (!row.providerSessionId) throw new DomainError("CONFLICT", "the payment has no provider session to refund");
  const owner = { accountId: row.accountId, paymentId: row.id };
  // What the payment credited to the balance; a commission at or above the amount credited nothing.
  const net = row.amountKopecks - row.commissionKopecks;
  if (net > 0) {
    try {
      await d.balance.reserveRefund({ ...owner, amountKopecks: net });
    } catch (e) {
      if (e instanceof DomainError && e.code === "CONFLICT") throw new DomainError("CONFLICT", `the refund needs ${net} kopecks of available balance: ${e.message}`);
      throw e;
    }
  }
  const release = async (reason: string) => {
    if (net <= 0) return;
    await d.balance.releaseRefund(owner).catch((err) => d.log.error({ err, paymentId: row.id, reason }, "refund reserve not released; release it by hand"));
  };
  let refused: string;
  try {
    const refund = await d.provider.refund(row.providerSessionId, row.amountKopecks);
    if (refund.status === "SUCCEEDED") return;
    refused = `declined (refund ${refund.refundId})`;
  } catch (e) {
    // Unknown outcome: the reserve stays so a retry (idempotent at the provider) can finish the job.
    if (!(e instanceof ProviderError && e.kind === "rejected")) providerFailure(e, "the refund");
    refused = e.message;
  }
  await release(refused);
  d.log.warn({ paymentId: row.id, reason: refused }, "provider refused the refund");
  throw new DomainError("CONFLICT", "the payment provider declined the refund; nothing was refunded");
}
