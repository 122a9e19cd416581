import { z } from "zod";
import { IsoDateTime, PayoutStatus } from "./primitives.ts";

/**
 * What the operator works with to pay payouts out (docs/balance.md, "Payout rails"): the exchange
 * files made for the bank, and the bank statements taken back in. Operators only: the admin CLI
 * and the operators' pages, never the merchant API.
 */

/** An exchange file of payment orders made for upload to the bank. */
export const PayoutBatch = z.object({
  id: z.string(),
  createdAt: IsoDateTime,
  orders: z.number().int(),
  totalKopecks: z.number().int(),
  /** Who made it (the operator's actor label). */
  createdBy: z.string(),
});
export type PayoutBatch = z.infer<typeof PayoutBatch>;

/** A PENDING payout not sent yet, and why: its account's payout account is new (held until `until`), or it has no details. */
export const WaitingPayout = z.object({
  payoutId: z.string(),
  accountId: z.string(),
  amountKopecks: z.number().int(),
  reason: z.enum(["held", "noDetails"]),
  until: IsoDateTime.nullable(),
});
export type WaitingPayout = z.infer<typeof WaitingPayout>;

/** An exchange file just made (none when nothing may be sent), in base64, and what still waits. */
export const PayoutExport = z.object({ batch: PayoutBatch.nullable(), fileBase64: z.string().nullable(), waiting: z.array(WaitingPayout) });
export type PayoutExport = z.infer<typeof PayoutExport>;

/** One line of a statement that is a payout's: its line in the file, the payout and what it showed. */
export const StatementLine = z.object({
  line: z.number().int(),
  payoutId: z.string(),
  reference: z.string(),
  amountKopecks: z.number().int(),
  /** The bank's words of a refusal or return. */
  reason: z.string().nullable(),
});
export type StatementLine = z.infer<typeof StatementLine>;

/**
 * What a bank statement changed: payouts it showed debited (PAID), returned (RETURNED) or refused
 * (FAILED), those of ours not yet executed, and those whose change was made before (an overlapping
 * statement). `duplicate`: this very file was imported before (at `importedAt`), and nothing changed now.
 */
export const StatementReport = z.object({
  sha256: z.string(),
  duplicate: z.boolean(),
  importedAt: IsoDateTime,
  account: z.string(),
  periodFrom: z.string(),
  periodTo: z.string(),
  documents: z.number().int(),
  /** Lines that are not payouts' (the account's other payments). */
  notOurs: z.number().int(),
  paid: z.array(StatementLine),
  returned: z.array(StatementLine),
  failed: z.array(StatementLine),
  inProgress: z.array(StatementLine),
  alreadyApplied: z.array(StatementLine.extend({ status: PayoutStatus })),
  /** References that look like ours but name no payout. */
  unknownReferences: z.array(z.string()),
});
export type StatementReport = z.infer<typeof StatementReport>;
