import type { Logger } from "@payaccept/platform";
import { isFinal } from "../domain/state-machine.ts";
import { countTransition } from "../metrics.ts";
import type { CommittedTransition } from "../store/payments-store.ts";

/**
 * After each committed status change: one log line, its count, the read models' notice (its view
 * changed), and the relay woken when an event is waiting.
 */
export const announceTransitions =
  (log: Logger, wakeRelay: () => void, noticeChange: (paymentId: string) => void) =>
  (transition: CommittedTransition): void => {
    const { row, from, to, trigger, requestId } = transition;
    log.info({ requestId, paymentId: row.id, shopId: row.shopId, orderId: row.orderId, from, to, trigger }, "payment status changed");
    countTransition(transition);
    noticeChange(row.id);
    if (isFinal(to)) wakeRelay();
  };
