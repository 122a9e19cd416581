import { DomainError, ReasonCode, rpcs, type Reason } from "@payaccept/contracts";
import { call } from "@payaccept/platform";
import { requireShaped, UsageError, type Command, type Flags } from "../cli.ts";
import { shopOfPayment } from "./money.ts";

/** How many FAILED receipts one command looks at: a day's worth on a bad day, in one answer. */
const FAILED_LIMIT = 1000;

/** --reason CODE: a reason of the catalogue, or a usage mistake. */
function reasonFlag(flags: Flags): Reason | undefined {
  if (flags.reason === undefined) return undefined;
  const reason = ReasonCode.safeParse(flags.reason);
  if (!reason.success) throw new UsageError("--reason must be a reason code, e.g. REGISTER_REFUSED");
  return reason.data;
}

export const receiptCommands: Record<string, Command> = {
  /** Receipts of a payment, or every FAILED receipt with its last error: what needs an operator (docs/receipts.md, "Each day"). */
  "receipt:list": {
    usage: "--payment ID [--shop ID] | --failed [--reason CODE] [--json]",
    flags: { payment: "string", shop: "string", failed: "boolean", reason: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      if (flags.failed === true) {
        if (flags.payment !== undefined) throw new UsageError("--payment and --failed are two different lists: give one");
        print(await call(nc, rpcs.receipts.failed, { limit: FAILED_LIMIT, reason: reasonFlag(flags) }, timeoutMs));
        return;
      }
      const id = requireShaped(flags, "payment", "uuid");
      print(await call(nc, rpcs.receipts.list, { shopId: await shopOfPayment(nc, flags, id, timeoutMs), paymentIds: [id] }, timeoutMs));
    },
  },
  /**
   * A FAILED receipt back to the register with fresh attempts (docs/receipts.md, "Resend"), or
   * every FAILED one (of a reason) once its cause is dealt with: each resent, or why not.
   */
  "receipt:resend": {
    usage: "--receipt ID | --failed [--reason CODE] [--json]",
    flags: { receipt: "string", failed: "boolean", reason: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      if (flags.failed !== true) {
        print(await call(nc, rpcs.receipts.resend, { id: requireShaped(flags, "receipt", "uuid") }, timeoutMs));
        return;
      }
      if (flags.receipt !== undefined) throw new UsageError("--receipt and --failed: give one");
      const { items } = await call(nc, rpcs.receipts.failed, { limit: FAILED_LIMIT, reason: reasonFlag(flags) }, timeoutMs);
      const resent: string[] = [];
      const notResent: { id: string; reason: string }[] = [];
      for (const r of items) {
        try {
          resent.push((await call(nc, rpcs.receipts.resend, { id: r.id }, timeoutMs)).id);
        } catch (e) {
          // Resent or registered meanwhile by someone else: said, and the rest go on.
          if (!(e instanceof DomainError)) throw e;
          notResent.push({ id: r.id, reason: e.reason });
        }
      }
      print({ resent, notResent });
    },
  },
};
