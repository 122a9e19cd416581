import { existsSync } from "node:fs";
import { PAYOUT_STATUSES, PayoutSchedule, PayoutStatus, rpcs } from "@payaccept/contracts";
import { call } from "@payaccept/platform";
import { requireFlag, requireShaped, UsageError, type Command, type Flags } from "../cli.ts";
import { knownAccount } from "./known.ts";
import { optionalFlag, positiveIntFlag } from "./money.ts";

/** --out: a new file's path; an existing file is never overwritten (an earlier exchange file the bank has not had yet). */
function newFile(flags: Flags): string {
  const path = requireFlag(flags, "out");
  if (existsSync(path)) throw new UsageError(`--out ${path} exists: name a new file`);
  return path;
}

const limitOf = (flags: Flags) => (flags.limit === undefined ? undefined : positiveIntFlag(flags, "limit"));

/**
 * The operator's payout commands (docs/balance.md, "An operator's day"): the
 * exchange file for the bank, the bank's statement back, and what waits in between.
 */
export const payoutCommands: Record<string, Command> = {
  "account:details": {
    usage: "--account ID [--json]  (its legal and bank details, and whether a new payout account holds its payouts)",
    flags: { account: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => print(await call(nc, rpcs.directory.getAccountDetails, { accountId: await knownAccount(nc, flags, timeoutMs) }, timeoutMs)),
  },
  /** Reads the account's payout schedule, or sets it (--daily or --weekly DAY, --at HH:MM, --keep KOPECKS), or turns it off. */
  "payout:schedule": {
    usage: "--account ID [--daily | --weekly 1..7] [--at HH:MM] [--keep KOPECKS] [--off] [--json]  (without a change: the schedule and its next payout)",
    flags: { account: "string", daily: "boolean", weekly: "string", at: "string", keep: "string", off: "boolean" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const accountId = await knownAccount(nc, flags, timeoutMs);
      const modes = [flags.daily === true, flags.weekly !== undefined, flags.off === true].filter(Boolean).length;
      if (modes > 1) throw new UsageError("give one of --daily, --weekly DAY, --off");
      if (modes === 0) return print(await call(nc, rpcs.balance.getSchedule, { accountId }, timeoutMs));
      if (flags.off === true) return print(await call(nc, rpcs.balance.setSchedule, { accountId, schedule: null }, timeoutMs));
      const parsed = PayoutSchedule.safeParse({
        frequency: flags.daily === true ? "daily" : "weekly",
        weekday: flags.daily === true ? null : Number(flags.weekly),
        time: optionalFlag(flags, "at") ?? "10:00",
        minimumKopecks: flags.keep === undefined ? 0 : Number(flags.keep),
      });
      if (!parsed.success) throw new UsageError("--weekly takes 1 (Monday) … 7 (Sunday), --at HH:MM (Moscow time), --keep a whole number of kopecks");
      print(await call(nc, rpcs.balance.setSchedule, { accountId, schedule: parsed.data }, timeoutMs));
    },
  },
  "payout:queue": {
    usage: `[--status ${PAYOUT_STATUSES.join("|")}] [--limit N] [--json]  (every account's payouts in a status, oldest first; PENDING by default)`,
    flags: { status: "string", limit: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const status = PayoutStatus.safeParse(optionalFlag(flags, "status") ?? "PENDING");
      if (!status.success) throw new UsageError(`--status must be one of ${PAYOUT_STATUSES.join(", ")}`);
      print(await call(nc, rpcs.balance.payoutsInStatus, { status: status.data, limit: limitOf(flags) }, timeoutMs));
    },
  },
  /**
   * The PENDING payouts that may go now, as one 1CClientBankExchange file for the bank's internet
   * bank; they are SENT from then on. Prints the file's batch and what waits (a new payout
   * account's hold, no details).
   */
  "payout:export": {
    usage: "--out FILE [--limit N] [--json]  (an exchange file of payment orders to upload to the bank)",
    flags: { out: "string", limit: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const out = newFile(flags);
      const made = await call(nc, rpcs.balance.exportPayouts, { limit: limitOf(flags) }, timeoutMs);
      if (made.fileBase64) await Bun.write(out, Buffer.from(made.fileBase64, "base64"));
      print({ file: made.fileBase64 ? out : null, batch: made.batch, waiting: made.waiting });
    },
  },
  "payout:batches": {
    usage: "[--limit N] [--json]  (the exchange files made, newest first)",
    flags: { limit: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => print(await call(nc, rpcs.balance.payoutBatches, { limit: limitOf(flags) }, timeoutMs)),
  },
  "payout:batch-file": {
    usage: "--batch ID --out FILE [--json]  (an exchange file again, the same bytes)",
    flags: { batch: "string", out: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const batchId = requireShaped(flags, "batch", "uuid");
      const out = newFile(flags);
      const { batch, fileBase64 } = await call(nc, rpcs.balance.payoutBatchFile, { batchId }, timeoutMs);
      await Bun.write(out, Buffer.from(fileBase64, "base64"));
      print({ file: out, batch });
    },
  },
  /** The bank's statement (1CClientBankExchange) taken in; prints what it changed, or why it changed nothing. */
  "payout:import-statement": {
    usage: "--file FILE [--json]  (the bank's statement of the payer's account)",
    flags: { file: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const path = requireFlag(flags, "file");
      const file = Bun.file(path);
      if (!(await file.exists())) throw new UsageError(`--file ${path}: no such file`);
      print(await call(nc, rpcs.balance.importStatement, { fileBase64: Buffer.from(await file.arrayBuffer()).toString("base64") }, timeoutMs));
    },
  },
  "payout:outcome": {
    usage: "--payout ID --status PAID|FAILED|RETURNED [--reason TEXT] [--json]  (what the bank said outside a statement)",
    flags: { payout: "string", status: "string", reason: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const payoutId = requireShaped(flags, "payout", "uuid");
      const status = requireFlag(flags, "status");
      if (status !== "PAID" && status !== "FAILED" && status !== "RETURNED") throw new UsageError("--status must be PAID, FAILED or RETURNED");
      print(await call(nc, rpcs.balance.recordPayoutOutcome, { payoutId, status, reason: optionalFlag(flags, "reason") }, timeoutMs));
    },
  },
};
