import { rpcs } from "@payaccept/contracts";
import { call, type NatsConnection } from "@payaccept/platform";
import { requireFlag, requireShaped, UsageError, type Command, type Flags } from "../cli.ts";
import { knownAccount } from "./known.ts";

/** A flag that must be a positive whole number (kopecks, counts). */
export function positiveIntFlag(flags: Flags, name: string): number {
  const raw = requireFlag(flags, name);
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new UsageError(`--${name} must be a positive whole number`);
  }
  return Number(raw);
}

export const optionalFlag = (flags: Flags, name: string) => (typeof flags[name] === "string" ? flags[name] : undefined);

/** --shop, or the payment's own shop looked up (operators may give just a payment id). */
export async function shopOfPayment(nc: NatsConnection, flags: Flags, id: string, timeoutMs: number): Promise<string> {
  return optionalFlag(flags, "shop") ?? (await call(nc, rpcs.payments.owner, { id }, timeoutMs)).shopId;
}

export const moneyCommands: Record<string, Command> = {
  "balance:get": {
    usage: "--account ID [--json]",
    flags: { account: "string" },
    run: async ({ nc, flags, timeoutMs, print }) =>
      print(await call(nc, rpcs.balance.get, { accountId: await knownAccount(nc, flags, timeoutMs) }, timeoutMs)),
  },
  "payout:create": {
    usage: "--account ID --amount KOPECKS [--idempotency-key KEY] [--json]",
    flags: { account: "string", amount: "string", "idempotency-key": "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const amountKopecks = positiveIntFlag(flags, "amount");
      const request = {
        accountId: await knownAccount(nc, flags, timeoutMs),
        amountKopecks,
        idempotencyKey: optionalFlag(flags, "idempotency-key"),
      };
      print(await call(nc, rpcs.balance.createPayout, request, timeoutMs));
    },
  },
  "payout:list": {
    usage: "--account ID [--limit N] [--json]",
    flags: { account: "string", limit: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const limit = flags.limit === undefined ? undefined : positiveIntFlag(flags, "limit");
      print(await call(nc, rpcs.balance.listPayouts, { accountId: await knownAccount(nc, flags, timeoutMs), limit }, timeoutMs));
    },
  },
  /**
   * Refund of a SUCCESS payment: --amount kopecks, or everything not yet refunded; prints the Refund.
   * --idempotency-key makes a retry return the first refund instead of making another. Without
   * --shop the payment's own shop is looked up; with it, a payment of another shop is not found.
   */
  "payment:refund": {
    usage: "--payment ID [--amount KOPECKS] [--reason TEXT] [--idempotency-key KEY] [--shop ID] [--json]",
    flags: { payment: "string", shop: "string", amount: "string", reason: "string", "idempotency-key": "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const id = requireShaped(flags, "payment", "uuid");
      const request = {
        shopId: await shopOfPayment(nc, flags, id, timeoutMs),
        id,
        amountKopecks: flags.amount === undefined ? undefined : positiveIntFlag(flags, "amount"),
        reason: optionalFlag(flags, "reason"),
        idempotencyKey: optionalFlag(flags, "idempotency-key"),
      };
      print(await call(nc, rpcs.payments.refund, request, timeoutMs));
    },
  },
  /**
   * An AUTHORIZED hold taken: all of it, or --amount kopecks (the rest released); prints the
   * payment. A partial capture of a payment with a fiscal receipt needs the sold lines, which only
   * the API (and the dashboard's whole capture) can give: here it is refused as the API refuses it.
   */
  "payment:capture": {
    usage: "--payment ID [--amount KOPECKS] [--shop ID] [--json]",
    flags: { payment: "string", shop: "string", amount: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const id = requireShaped(flags, "payment", "uuid");
      const amountKopecks = flags.amount === undefined ? undefined : positiveIntFlag(flags, "amount");
      print(await call(nc, rpcs.payments.capture, { shopId: await shopOfPayment(nc, flags, id, timeoutMs), id, amountKopecks }, timeoutMs));
    },
  },
  /** The API's cancel: a CREATED invoice canceled, or an AUTHORIZED hold voided (the money released). */
  "payment:cancel": {
    usage: "--payment ID [--shop ID] [--json]  (voids an AUTHORIZED hold; cancels an invoice nobody started paying)",
    flags: { payment: "string", shop: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const id = requireShaped(flags, "payment", "uuid");
      print(await call(nc, rpcs.payments.cancel, { shopId: await shopOfPayment(nc, flags, id, timeoutMs), id }, timeoutMs));
    },
  },
  "payment:refunds": {
    usage: "--payment ID [--shop ID] [--json]",
    flags: { payment: "string", shop: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const id = requireShaped(flags, "payment", "uuid");
      print(await call(nc, rpcs.payments.listRefunds, { shopId: await shopOfPayment(nc, flags, id, timeoutMs), id }, timeoutMs));
    },
  },
};
