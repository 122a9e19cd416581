import type { ProviderCallback } from "@payaccept/contracts";
import type { AcquirerTx } from "../store/db.ts";
import type { SessionRow } from "../store/schema.ts";
import { statements } from "../store/statements.ts";

/** What an event says beyond the session it is about; absent fields are null on the wire. */
export type CallbackFields = Partial<Omit<ProviderCallback, "callbackId" | "sessionId" | "merchantPaymentId" | "event">> & { event: string };

/**
 * Writes one callback into the outbox, in the caller's transaction: the change it reports and the
 * callback commit together, so a crash can neither lose it nor send one for a change not stored.
 * The body is fixed here and identical on every attempt.
 */
export function writeCallback(tx: AcquirerTx, session: SessionRow, fields: CallbackFields, now: number): string {
  const callbackId = Bun.randomUUIDv7();
  const body: ProviderCallback = {
    callbackId,
    sessionId: session.id,
    merchantPaymentId: session.merchantPaymentId,
    event: fields.event,
    paidAt: fields.paidAt ?? null,
    reason: fields.reason ?? null,
    amountKopecks: fields.amountKopecks ?? null,
    holdExpiresAt: fields.holdExpiresAt ?? null,
    savedMethod: fields.savedMethod ?? null,
  };
  statements(tx).insertCallback({ id: callbackId, sessionId: session.id, url: session.callbackUrl, body: JSON.stringify(body), state: "pending", nextAttemptAt: now, createdAt: now });
  return callbackId;
}
