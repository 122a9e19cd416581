import { jetstream, type JetStreamClient } from "@nats-io/jetstream";
import { rpcs, type PaymentEvent, type RefundEvent } from "@payaccept/contracts";
import { ensurePaymentsStream } from "@payaccept/platform";
import { PAYEE, paymentEvent, publishPaymentEvent, publishRefundEvent } from "../services/balance/src/testing.ts";
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

export { PAYER_ENV } from "../services/balance/src/testing.ts";

/** An account's legal and bank details entered as the dashboard enters them (a company at Sberbank; `account` another valid one). */
export function enterPayoutDetails(stack: Stack, accountId: string, account = PAYEE.payout.account) {
  return stack.call(rpcs.directory.setAccountDetails, { accountId, details: { ...PAYEE, payout: { ...PAYEE.payout, account } } });
}

/** A new directory account with payout details: one the balance pays out of. */
export async function payableAccount(stack: Stack): Promise<string> {
  const { accountId } = await stack.call(rpcs.directory.createAccount, {});
  await enterPayoutDetails(stack, accountId);
  return accountId;
}
