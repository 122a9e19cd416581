import { rpcs } from "@payaccept/contracts";
import { call } from "@payaccept/platform";
import { requireShaped, type Command } from "../cli.ts";
import { shopOfPayment } from "./money.ts";

export const receiptCommands: Record<string, Command> = {
  /** Receipts of a payment, to find the id of a FAILED one. */
  "receipt:list": {
    usage: "--payment ID [--shop ID] [--json]",
    flags: { payment: "string", shop: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const id = requireShaped(flags, "payment", "uuid");
      print(await call(nc, rpcs.receipts.list, { shopId: await shopOfPayment(nc, flags, id, timeoutMs), paymentIds: [id] }, timeoutMs));
    },
  },
  /** A FAILED receipt back to the cash register with fresh attempts (docs/receipts.md, "Failure handling"). */
  "receipt:resend": {
    usage: "--receipt ID [--json]",
    flags: { receipt: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => print(await call(nc, rpcs.receipts.resend, { id: requireShaped(flags, "receipt", "uuid") }, timeoutMs)),
  },
};
