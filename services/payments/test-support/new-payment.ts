import type { NewPayment } from "../src/store/payments-store.ts";

/** A create as the use case hands it to the store: 100 rubles, 2.50 commission, buyer's choice of method. */
export const newPayment = (shopId: string, orderId: string, over: Partial<NewPayment> = {}): NewPayment => ({
  shopId,
  accountId: `acct-${shopId}`,
  orderId,
  amountKopecks: 10_000,
  commissionKopecks: 250,
  description: null,
  email: null,
  method: null,
  telegramId: "42",
  metadata: { a: 1 },
  successUrl: null,
  failUrl: null,
  isTest: false,
  receipt: null,
  ...over,
});
