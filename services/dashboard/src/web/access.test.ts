import { describe, expect, test } from "bun:test";
import { ACCOUNT_ROLES } from "../store/schema.ts";
import { can, PERMISSIONS, ROUTE_RULES, SECOND_FACTOR, SENSITIVE, type Action } from "./access.ts";

const ACTIONS = Object.keys(PERMISSIONS) as Action[];

describe("the role table", () => {
  test("each role may do what issue 19 and docs/dashboard.md say, and nothing else", () => {
    const allowed = Object.fromEntries(ACCOUNT_ROLES.map((role) => [role, ACTIONS.filter((a) => can(role, a))]));
    const everyone = ["overview.view", "shops.view", "payments.view", "team.leave"];
    const builds = ["shops.create", "shops.settings", "receipts.settings", "keys.issue", "keys.end_overlap", "webhook.view", "webhook.manage", "secret.reveal", "secret.rotate", "secret.end_overlap"];
    const team = ["team.view", "team.invite", "team.roles", "team.settings", "audit.view"];
    const sorted = (list: string[]) => [...list].sort();
    expect(sorted(allowed.owner!)).toEqual(sorted(ACTIONS));
    // The admin's difference from the owner (no owner role to hand out) is members.ts's rule, not the table's.
    expect(sorted(allowed.admin!)).toEqual(sorted(ACTIONS));
    expect(sorted(allowed.developer!)).toEqual(sorted([...everyone, ...builds]));
    expect(sorted(allowed.accountant!)).toEqual(sorted([...everyone, "payments.export", "balance.view", "details.view"]));
    expect(sorted(allowed.support!)).toEqual(sorted([...everyone, "payments.refund"]));
    expect(sorted(allowed.viewer!)).toEqual(sorted([...everyone, "payments.export", "balance.view", "details.view", "webhook.view"]));
    expect(team.every((a) => !can("operator", a as Action))).toBe(true);
  });

  test("keys, secrets, payouts, payout details and the team ask for a fresh proof; only actions (POST) can", () => {
    expect([...SENSITIVE].sort()).toEqual(["details.edit", "keys.issue", "payouts.create", "payouts.schedule", "secret.reveal", "secret.rotate", "team.invite", "team.roles", "team.settings"]);
    const fresh = Object.entries(ROUTE_RULES).filter(([, rule]) => "fresh" in rule && rule.fresh);
    expect(fresh.every(([route]) => route.startsWith("POST "))).toBe(true);
    for (const [route, rule] of Object.entries(ROUTE_RULES)) if (rule.who === "member" && SENSITIVE.has(rule.action)) expect({ route, fresh: "fresh" in rule && rule.fresh }).toEqual({ route, fresh: true });
  });

  test("where payouts go is changed only with a second factor, never a password alone", () => {
    expect([...SECOND_FACTOR]).toEqual(["details.edit"]);
    const needFactor = Object.entries(ROUTE_RULES).filter(([, rule]) => rule.who === "member" && rule.secondFactor);
    expect(needFactor.map(([route]) => route)).toEqual(["POST /balance/details"]);
  });
});
