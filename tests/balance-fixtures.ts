import { jetstream, type JetStreamClient } from "@nats-io/jetstream";
import { rpcs, type PaymentEvent, type RefundEvent } from "@payaccept/contracts";
import { ensurePaymentsStream } from "@payaccept/platform";
import { paymentEvent, publishPaymentEvent, publishRefundEvent } from "../services/balance/src/testing.ts";
import { eventually, type Stack } from "./harness/stack.ts";

/** Shared by the tests/balance-*.test.ts files: the stream as payments feeds it, and the figures as callers read them. */

const DAY = 86_400_000;
/** Paid three days ago: released whatever the hold hour and the time of the run. */
export const longAgo = () => new Date(Date.now() - 3 * DAY).toISOString();
/** Paid now: on hold until tomorrow's hold hour at the earliest. */
export const justNow = () => new Date().toISOString();
export const newAccount = () => `account-${Bun.randomUUIDv7()}`;

export class BalanceFeed {
  private constructor(
    private readonly stack: Stack,
    readonly js: JetStreamClient,
  ) {}

  static async open(stack: Stack): Promise<BalanceFeed> {
    await ensurePaymentsStream(stack.nc);
    return new BalanceFeed(stack, jetstream(stack.nc));
  }

  balanceOf(accountId: string) {
    return this.stack.call(rpcs.balance.get, { accountId });
  }

  publish(event: PaymentEvent, msgId?: string) {
    return publishPaymentEvent(this.js, event, msgId);
  }

  publishRefund(event: RefundEvent) {
    return publishRefundEvent(this.js, event);
  }

  publishAll(events: PaymentEvent[]) {
    return Promise.all(events.map((e) => publishPaymentEvent(this.js, e)));
  }

  /**
   * Resolves once the service has applied everything published before: the consumer applies the
   * stream in order, so a marker receipt of an account of its own showing up means all earlier did.
   */
  async consumed(): Promise<void> {
    const marker = paymentEvent({ accountId: newAccount(), paidAt: justNow(), amountKopecks: 100, commissionKopecks: 0 });
    await this.publish(marker);
    await eventually(async () => (await this.balanceOf(marker.accountId)).frozenKopecks === 100, 30_000);
  }

  /** Available money for an account (another shop's receipts of earlier days); waits until it shows. */
  async fund(accountId: string, kopecks: number, shopId = "shop-earlier-sales"): Promise<PaymentEvent> {
    const before = (await this.balanceOf(accountId)).availableKopecks;
    const receipt = paymentEvent({ accountId, shopId, paidAt: longAgo(), amountKopecks: kopecks, commissionKopecks: 0 });
    await this.publish(receipt);
    await eventually(async () => (await this.balanceOf(accountId)).availableKopecks === before + kopecks);
    return receipt;
  }
}
