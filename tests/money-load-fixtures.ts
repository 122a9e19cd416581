import { rpcs, type Payment } from "@payaccept/contracts";
import type { ServiceName } from "../infra/launcher/services.ts";
import { startReceiver, type Receiver } from "../services/webhook-dispatcher/test-support/receiver.ts";
import { BalanceFeed, enterPayoutDetails } from "./balance-fixtures.ts";
import { eventually, Stack, type ShopCreated, type StackOptions } from "./harness/stack.ts";
import { BankApp } from "./payments-fixtures.ts";
import { UNLIMITED_RATES } from "./replica-fixtures.ts";

/**
 * Shared by tests/postgres-failover.test.ts and tests/backup-restore.test.ts: a merchant's money
 * through the real API while something breaks underneath. Live SBP payments paid in the bank app,
 * refunded and paid out, each call sent again with its Idempotency-Key until answered, every try
 * recorded (the failed ones are the outage).
 */
export type Attempt = { op: string; at: number; ok: boolean; status: number };
export type Order = {
  orderId: string;
  payment?: Payment;
  /** When the payment was first read SUCCESS (performance.now()). */
  paidAt?: number;
  refundId?: string;
  refundedAt?: number;
  payoutId?: string;
  payoutAt?: number;
};

export const AMOUNT = 10_000;
export const PAYOUT = 1_000;

export class MerchantLoad {
  readonly attempts: Attempt[] = [];
  readonly orders: Order[] = [];
  private readonly bank: BankApp;

  constructor(
    private readonly stack: Stack,
    private readonly shop: ShopCreated,
  ) {
    this.bank = new BankApp(stack);
  }

  /** One merchant call, sent again with the same Idempotency-Key until it is answered (bounded). */
  async answered<T>(op: string, path: string, init: { method?: string; json?: unknown; key?: string } = {}): Promise<T> {
    for (let n = 0; n < 120; n++) {
      let status = 0;
      try {
        const res = await this.stack.api(this.shop.apiKey, path, { method: init.method, json: init.json, headers: init.key ? { "Idempotency-Key": init.key } : {} });
        status = res.status;
        if (status === 200 || status === 201) {
          this.attempts.push({ op, at: performance.now(), ok: true, status });
          return (await res.json()) as T;
        }
        await res.body?.cancel();
      } catch {
        // The connection failed: a failed request like any other.
      }
      this.attempts.push({ op, at: performance.now(), ok: false, status });
      await Bun.sleep(200);
    }
    throw new Error(`${op} ${path} never answered`);
  }

  /** A payment through its life: created, paid in the bank app, refunded in full if asked, and a payout beside it. */
  async run(orderId: string, opts: { refund: boolean }): Promise<Order> {
    const order: Order = { orderId };
    this.orders.push(order);
    order.payment = await this.answered<Payment>("create", "/v1/payments", { method: "POST", key: `create-${orderId}`, json: { orderId, amountKopecks: AMOUNT, method: "SBP" } });
    const id = order.payment.id;
    const view = await eventually(() => this.stack.call(rpcs.payments.start, { id, method: "SBP" }), 30_000, 200);
    await eventually(() => this.bank.sbp(view.sbp!.qrPayload, "pay").then(() => true), 30_000, 200);
    order.payment = await eventually(async () => {
      const p = await this.answered<Payment>("read", `/v1/payments/${id}`);
      return p.status === "SUCCESS" && p;
    }, 60_000, 200);
    order.paidAt = performance.now();
    if (opts.refund) {
      const refund = await this.answered<{ id: string; status: string }>("refund", `/v1/payments/${id}/refunds`, { method: "POST", key: `refund-${orderId}`, json: {} });
      order.refundId = refund.id;
      await eventually(async () => (await this.stack.call(rpcs.payments.listRefunds, { shopId: this.shop.shopId, id })).items.some((r) => r.id === refund.id && r.status === "SUCCEEDED"), 60_000, 200);
      order.refundedAt = performance.now();
    }
    const payout = await this.answered<{ id: string }>("payout", "/v1/payouts", { method: "POST", key: `payout-${orderId}`, json: { amountKopecks: PAYOUT } });
    order.payoutId = payout.id;
    order.payoutAt = performance.now();
    return order;
  }

  /** `workers` merchants at once, each running orders until `until()` says stop (at most `max` each). */
  async workers(workers: number, prefix: string, until: () => boolean, max: number, refund: (i: number) => boolean): Promise<void> {
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        for (let i = 0; i < max && !until(); i++) await this.run(`${prefix}-${w}-${i}`, { refund: refund(i) });
      }),
    );
  }
}

/** A payment's net receipt in the ledger: its amount less the commission (docs/balance.md). */
export const net = (p: Payment) => p.amountKopecks - p.commissionKopecks;

/** The services a merchant's money goes through: the API, payments and the bank, the balance, webhooks. */
export const MONEY_SERVICES: ServiceName[] = ["directory", "gateway", "payments", "balance", "webhook-dispatcher", "acquirer-emulator"];

export type MoneyStack = { stack: Stack; receiver: Receiver; shop: ShopCreated; load: MerchantLoad; stop: () => Promise<void> };

/**
 * A stack of MONEY_SERVICES with short redelivery and sweep timers (the breakage under test makes
 * them wait on those), one live SBP shop funded with `funded` kopecks whose webhooks go to a real
 * receiver and its payout details entered, and the merchant load on it, once the gateway knows the shop.
 */
export async function startMoneyStack(shopName: string, funded: number, opts: StackOptions = {}): Promise<MoneyStack> {
  const stack = await Stack.start({
    services: MONEY_SERVICES,
    ...opts,
    env: { ...UNLIMITED_RATES, BALANCE_ACK_WAIT: "2s", WEBHOOK_INTAKE_ACK_WAIT: "3s", REFUND_RETRY_MS: "500", OUTBOX_SWEEP_MS: "500", ...opts.env },
  });
  const receiver = startReceiver();
  const shop = await stack.createShop({ name: shopName, methods: ["SBP"], webhookUrl: receiver.url });
  await (await BalanceFeed.open(stack)).fund(shop.accountId, funded);
  // The last release's directory keeps no payout details: the rolling upgrade enters them once it is upgraded.
  if (!opts.executable) await enterPayoutDetails(stack, shop.accountId);
  await eventually(async () => (await stack.api(shop.apiKey, "/v1/payments?orderId=none")).status === 404, 30_000);
  return {
    stack,
    receiver,
    shop,
    load: new MerchantLoad(stack, shop),
    stop: async () => {
      receiver.stop();
      await stack.stop();
    },
  };
}
