import { rpcs } from "@payaccept/contracts";
import { call } from "@payaccept/platform";
import { requireFlag, UsageError, type Command, type Flags } from "../cli.ts";

/** A flag that must be a positive whole number (kopecks, counts). */
function positiveIntFlag(flags: Flags, name: string): number {
  const raw = requireFlag(flags, name);
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new UsageError(`--${name} must be a positive whole number`);
  }
  return Number(raw);
}

export const moneyCommands: Record<string, Command> = {
  "balance:get": {
    usage: "--account ID [--json]",
    flags: { account: "string" },
    run: async ({ nc, flags, timeoutMs, print }) =>
      print(await call(nc, rpcs.balance.get, { accountId: requireFlag(flags, "account") }, timeoutMs)),
  },
  "payout:create": {
    usage: "--account ID --amount KOPECKS [--idempotency-key KEY] [--json]",
    flags: { account: "string", amount: "string", "idempotency-key": "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const key = flags["idempotency-key"];
      const request = {
        accountId: requireFlag(flags, "account"),
        amountKopecks: positiveIntFlag(flags, "amount"),
        idempotencyKey: typeof key === "string" ? key : undefined,
      };
      print(await call(nc, rpcs.balance.createPayout, request, timeoutMs));
    },
  },
  "payout:list": {
    usage: "--account ID [--limit N] [--json]",
    flags: { account: "string", limit: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const limit = flags.limit === undefined ? undefined : positiveIntFlag(flags, "limit");
      print(await call(nc, rpcs.balance.listPayouts, { accountId: requireFlag(flags, "account"), limit }, timeoutMs));
    },
  },
  /**
   * Full refund of a SUCCESS payment (idempotent: a REFUNDED one is printed as it is). Without --shop
   * the payment's own shop is looked up; with it, a payment of another shop is not found.
   */
  "payment:refund": {
    usage: "--payment ID [--shop ID] [--json]",
    flags: { payment: "string", shop: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const id = requireFlag(flags, "payment");
      const shopId = typeof flags.shop === "string" ? flags.shop : (await call(nc, rpcs.payments.owner, { id }, timeoutMs)).shopId;
      print(await call(nc, rpcs.payments.refund, { shopId, id }, timeoutMs));
    },
  },
  /** For an operator when payments could not release a reserve after the provider refused a refund. */
  "refund:release": {
    usage: "--account ID --payment ID [--json]",
    flags: { account: "string", payment: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const request = { accountId: requireFlag(flags, "account"), paymentId: requireFlag(flags, "payment") };
      print(await call(nc, rpcs.balance.releaseRefund, request, timeoutMs));
    },
  },
};
