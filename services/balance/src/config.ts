import { correspondentAccountKeyOk, innChecksumOk, settlementAccountKeyOk } from "@payaccept/contracts";
import { commonEnv, databaseEnv, duration, port, type ConfigCheck } from "@payaccept/platform";
import { z } from "zod";
import type { OrderSettings, Payer } from "./payment-orders.ts";

export const PAYOUT_RAILS = ["exchange-file", "tbank"] as const;

const optional = z.string().trim().min(1).optional();

export const balanceEnv = {
  ...commonEnv,
  ...databaseEnv("BALANCE"),
  BALANCE_PORT: port(3005),
  /** Moscow hour of day D+1 at which the receipts of day D become available. */
  HOLD_HOUR: z.coerce.number().int().min(0).max(23).default(12),
  /**
   * How long an event received but not acked waits before it is delivered again. Applying one takes
   * well under a millisecond, so an unacked event almost surely belongs to a process that died.
   */
  BALANCE_ACK_WAIT: duration("10s"),
  /**
   * How payouts reach the bank (docs/balance.md, "Payout rails"): exchange files the operator
   * uploads to the bank's internet bank, or T-Bank's API for payments (TBANK_*).
   */
  PAYOUT_RAIL: z.enum(PAYOUT_RAILS).default("exchange-file"),
  /**
   * The platform's own account payouts are paid from: the payer of every payment order, and the
   * account whose statement the operator imports. Unset: payouts are made and wait PENDING, and
   * nothing can be sent.
   */
  PAYOUT_PAYER_NAME: optional,
  PAYOUT_PAYER_INN: optional,
  PAYOUT_PAYER_KPP: optional,
  PAYOUT_PAYER_ACCOUNT: optional,
  PAYOUT_PAYER_BIK: optional,
  PAYOUT_PAYER_CORR_ACCOUNT: optional,
  PAYOUT_PAYER_BANK: optional,
  /**
   * The purpose of every payout's payment order: {reference} (required: a statement line is
   * matched by it), {date}, {inn}, {recipient}; with the VAT words the Bank of Russia requires.
   */
  PAYOUT_PURPOSE: z.string().trim().min(1).max(210).default("Перечисление денежных средств, принятых в пользу клиента, выплата {reference} от {date}. Без налога (НДС)"),
  /** How often the scheduler looks for payout schedules that are due (every replica looks; each run is made once). */
  PAYOUT_SCHEDULE_TICK: duration("30s"),
  /** How often the payout events' outbox looks for events a crash or a failed publish left behind (each commit also wakes it). */
  PAYOUT_OUTBOX_SWEEP: duration("2s"),
};
export type BalanceConfig = z.output<z.ZodObject<typeof balanceEnv>>;

const PAYER = ["PAYOUT_PAYER_NAME", "PAYOUT_PAYER_INN", "PAYOUT_PAYER_KPP", "PAYOUT_PAYER_ACCOUNT", "PAYOUT_PAYER_BIK", "PAYOUT_PAYER_CORR_ACCOUNT", "PAYOUT_PAYER_BANK"] as const;

/**
 * The payer's variables come all together or not at all, and pass the checks a bank makes (the
 * INN's check digits, both accounts' control keys against the BIK): a typo found at start, not in
 * a bank's refusal of a whole file. The purpose must carry the reference and the VAT words.
 */
export const payoutSettingsOk: ConfigCheck<typeof balanceEnv> = (c) => {
  const problems: string[] = [];
  const set = PAYER.filter((k) => c[k] !== undefined);
  if (set.length > 0 && set.length < PAYER.length) problems.push(`${PAYER.filter((k) => c[k] === undefined).join(", ")}: set every PAYOUT_PAYER_* variable or none`);
  if (set.length === PAYER.length) {
    if (!/^\d{10}$/.test(c.PAYOUT_PAYER_INN!) || !innChecksumOk(c.PAYOUT_PAYER_INN!)) problems.push("PAYOUT_PAYER_INN: not a company's INN (10 digits with their check digit)");
    if (!/^\d{9}$/.test(c.PAYOUT_PAYER_BIK!)) problems.push("PAYOUT_PAYER_BIK: must be 9 digits");
    else {
      if (!/^\d{20}$/.test(c.PAYOUT_PAYER_ACCOUNT!) || !settlementAccountKeyOk(c.PAYOUT_PAYER_BIK!, c.PAYOUT_PAYER_ACCOUNT!)) problems.push("PAYOUT_PAYER_ACCOUNT: not 20 digits whose control key matches PAYOUT_PAYER_BIK");
      if (!/^\d{20}$/.test(c.PAYOUT_PAYER_CORR_ACCOUNT!) || !correspondentAccountKeyOk(c.PAYOUT_PAYER_BIK!, c.PAYOUT_PAYER_CORR_ACCOUNT!)) problems.push("PAYOUT_PAYER_CORR_ACCOUNT: not 20 digits whose control key matches PAYOUT_PAYER_BIK");
    }
  }
  if (!c.PAYOUT_PURPOSE.includes("{reference}")) problems.push("PAYOUT_PURPOSE: must contain {reference}, by which the bank's lines are matched to payouts");
  if (!c.PAYOUT_PURPOSE.includes("НДС")) problems.push("PAYOUT_PURPOSE: must state VAT (НДС), e.g. «Без налога (НДС)»");
  return problems;
};

/** The payer and the purpose, as the rails take them. */
export function orderSettingsOf(c: BalanceConfig): OrderSettings {
  const payer: Payer | undefined =
    c.PAYOUT_PAYER_ACCOUNT === undefined
      ? undefined
      : {
          name: c.PAYOUT_PAYER_NAME!,
          inn: c.PAYOUT_PAYER_INN!,
          kpp: c.PAYOUT_PAYER_KPP!,
          account: c.PAYOUT_PAYER_ACCOUNT,
          bik: c.PAYOUT_PAYER_BIK!,
          bankName: c.PAYOUT_PAYER_BANK!,
          correspondentAccount: c.PAYOUT_PAYER_CORR_ACCOUNT!,
        };
  return { payer, purposeTemplate: c.PAYOUT_PURPOSE };
}
