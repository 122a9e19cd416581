import { expect, test } from "bun:test";
import { parseConfig } from "@payaccept/platform";
import { balanceEnv, orderSettingsOf, payoutSettingsOk } from "./config.ts";
import { PAYER, PAYER_ENV as payerEnv } from "./testing.ts";

const load = (env: Record<string, string>) => parseConfig(balanceEnv, env, payoutSettingsOk);

test("the payer's details pass the checks a merchant's own details pass, each problem naming its variable", () => {
  expect(orderSettingsOf(load(payerEnv)).payer).toEqual(PAYER);
  // A private person's account, its control key right: not where a company pays from.
  expect(() => load({ ...payerEnv, PAYOUT_PAYER_ACCOUNT: "40817810000000012345" })).toThrow("PAYOUT_PAYER_ACCOUNT: must be a settlement account of this legal form: it starts with 40701, 40702, 40703");
  expect(() => load({ ...payerEnv, PAYOUT_PAYER_KPP: "77360100" })).toThrow("PAYOUT_PAYER_KPP: must be 9 characters");
  expect(() => load({ ...payerEnv, PAYOUT_PAYER_BIK: "144525974" })).toThrow("PAYOUT_PAYER_BIK: a Russian bank's BIK starts with 04");
  expect(() => load({ ...payerEnv, PAYOUT_PAYER_INN: "7736207544" })).toThrow("PAYOUT_PAYER_INN: the check digits do not match");
  expect(() => load({ ...payerEnv, PAYOUT_PAYER_KPP: "" })).toThrow("PAYOUT_PAYER_KPP: set every PAYOUT_PAYER_* variable or none");
});
