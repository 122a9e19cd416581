import type { Logger } from "@payaccept/platform";
import { isFinal } from "../domain/state-machine.ts";
import { transitionsTotal } from "../metrics.ts";
import type { CommittedTransition } from "../store/payments-store.ts";

/** After each committed status change: one log line, its count, and the relay woken when an event is waiting. */
export const announceTransitions =
  (log: Logger, wakeRelay: () => void) =>
  ({ row, from, to, trigger, requestId }: CommittedTransition): void => {
    log.info({ requestId, paymentId: row.id, shopId: row.shopId, orderId: row.orderId, from, to, trigger }, "payment status changed");
    transitionsTotal.inc({ from, to, trigger });
    if (isFinal(to)) wakeRelay();
  };
