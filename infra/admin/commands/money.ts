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
