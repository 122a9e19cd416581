import { ACCOUNT_ROLES, type AccountRole, type UserRole } from "../store/schema.ts";

const EVERYONE = ACCOUNT_ROLES;
const RUNS_TEAM = ["owner", "admin"] as const;
const BUILDS = ["owner", "admin", "developer"] as const;

/**
 * What each role of a team may do: the one table every page and action is checked against
 * (ROUTE_RULES below, through the access middleware) and every page's links and buttons consult
 * (`can`), after Stripe's roles and YooKassa's cabinet (docs/dashboard.md, "Members and roles").
 * Operators are not in it: they have no account, and these pages do not exist for them.
 */
export const PERMISSIONS = {
  "overview.view": EVERYONE,
  "shops.view": EVERYONE,
  "shops.create": BUILDS,
  "shops.settings": BUILDS,
  "receipts.settings": BUILDS,
  /** Issuing a key, or rolling one with an overlap. */
  "keys.issue": BUILDS,
  /** Turning a rolled key off before its expiry. */
  "keys.end_overlap": BUILDS,
  "webhook.view": [...BUILDS, "viewer"],
  /** The URL, test webhooks, resends. */
  "webhook.manage": BUILDS,
  "secret.reveal": BUILDS,
  "secret.rotate": BUILDS,
  /** The previous signing secret stops signing before its expiry. */
  "secret.end_overlap": BUILDS,
  "payments.view": EVERYONE,
  "payments.export": ["owner", "admin", "accountant", "viewer"],
  /** Refunds and cancellations. */
  "payments.refund": ["owner", "admin", "support"],
  /** The balance and the payouts made. */
  "balance.view": ["owner", "admin", "accountant", "viewer"],
  "payouts.create": RUNS_TEAM,
  /** The account's payout schedule: when payouts are made without anyone asking. */
  "payouts.schedule": RUNS_TEAM,
  /** The account's legal and bank details, where payouts go (read; the accountant checks them). */
  "details.view": ["owner", "admin", "accountant", "viewer"],
  /** Entering or changing them: a new payout account holds payouts and mails the owners. */
  "details.edit": RUNS_TEAM,
  /** The members, their roles and second factors, the pending invitations. */
  "team.view": RUNS_TEAM,
  "team.invite": RUNS_TEAM,
  /** Changing a member's role or removing them. */
  "team.roles": RUNS_TEAM,
  /** Whether every member must sign in with a second factor. */
  "team.settings": RUNS_TEAM,
  "team.leave": EVERYONE,
  /** The account's audit log and its CSV: who did what, from where (a security officer's view). */
  "audit.view": RUNS_TEAM,
} as const satisfies Record<string, readonly AccountRole[]>;

export type Action = keyof typeof PERMISSIONS;

/**
 * Actions that need the person to have proved who they are within DASHBOARD_REAUTH_AFTER (their
 * code, or their password without a second factor): whoever finds an open session must not
 * take keys, secrets or money, nor let themselves into the team.
 */
export const SENSITIVE: ReadonlySet<Action> = new Set<Action>(["keys.issue", "secret.reveal", "secret.rotate", "payouts.create", "payouts.schedule", "details.edit", "team.invite", "team.roles", "team.settings"]);

/**
 * Sensitive actions whose proof must be a second factor: where the money goes. A member without
 * one is refused (TWO_FACTOR_NOT_ENABLED) before anything is asked: a password alone, which a
 * phished or reused one may be, never redirects payouts (docs/dashboard.md, "Legal and bank details").
 */
export const SECOND_FACTOR: ReadonlySet<Action> = new Set<Action>(["details.edit"]);

export const can = (role: UserRole, action: Action): boolean => (PERMISSIONS[action] as readonly UserRole[]).includes(role);

/** A member of a team that requires a second factor, who has none yet: sent to enrol before anything else. */
export const mustEnrol = (viewer: { team: { requireTwoFactor: boolean } | null; twoFactor: boolean }) => viewer.team?.requireTwoFactor === true && !viewer.twoFactor;

/**
 * Who may open a route: anyone (sign-in, invitations), anyone signed in (their own account and
 * second factor), operators only, or members whose role allows the action. `fresh`: only with a
 * recent proof of identity (SENSITIVE, or one's own second factor).
 */
export type Rule = { who: "anyone" } | { who: "signedIn"; fresh?: true } | { who: "operator" } | { who: "member"; action: Action; fresh?: true; secondFactor?: true };

const ANYONE: Rule = { who: "anyone" };
const SIGNED_IN: Rule = { who: "signedIn" };
const OPERATOR: Rule = { who: "operator" };
const member = (action: Action): Rule =>
  SENSITIVE.has(action) ? { who: "member", action, fresh: true, ...(SECOND_FACTOR.has(action) ? { secondFactor: true as const } : {}) } : { who: "member", action };

/**
 * Every route of the pages, by method and path as registered: the access middleware looks the
 * matched route up here, and a route missing from it is refused (500) rather than opened;
 * tests/dashboard-access.test.ts walks every registered route with every role.
 */
export const ROUTE_RULES: Record<string, Rule> = {
  "GET /": ANYONE,
  "GET /login": ANYONE,
  "POST /login": ANYONE,
  "GET /login/code": ANYONE,
  "POST /login/code": ANYONE,
  "GET /signup": ANYONE,
  "POST /signup": ANYONE,
  "GET /invite": ANYONE,
  "POST /invite": ANYONE,
  "POST /logout": SIGNED_IN,

  "GET /account": SIGNED_IN,
  "POST /account/two-factor": SIGNED_IN,
  "POST /account/two-factor/confirm": SIGNED_IN,
  "POST /account/two-factor/disable": { who: "signedIn", fresh: true },
  "POST /account/recovery-codes": { who: "signedIn", fresh: true },
  "POST /account/leave": member("team.leave"),

  "GET /overview": member("overview.view"),
  "GET /shops": member("shops.view"),
  "POST /shops": member("shops.create"),
  "GET /shops/:shopId": member("shops.view"),
  "POST /shops/:shopId/settings": member("shops.settings"),
  "POST /shops/:shopId/receipts": member("receipts.settings"),
  "POST /shops/:shopId/key": member("keys.issue"),
  "POST /shops/:shopId/keys/:keyId/end": member("keys.end_overlap"),

  "GET /shops/:shopId/webhook": member("webhook.view"),
  "POST /shops/:shopId/webhook/url": member("webhook.manage"),
  "POST /shops/:shopId/webhook/secret": member("secret.reveal"),
  "POST /shops/:shopId/webhook/secret/rotate": member("secret.rotate"),
  "POST /shops/:shopId/webhook/secret/end-overlap": member("secret.end_overlap"),
  "POST /shops/:shopId/webhook/test": member("webhook.manage"),
  "POST /shops/:shopId/webhook/deliveries/:deliveryId/resend": member("webhook.manage"),

  "GET /shops/:shopId/payments": member("payments.view"),
  "GET /shops/:shopId/payments.csv": member("payments.export"),
  "GET /shops/:shopId/payments/:paymentId": member("payments.view"),
  "GET /shops/:shopId/payments/:paymentId/refund": member("payments.refund"),
  "POST /shops/:shopId/payments/:paymentId/refund": member("payments.refund"),
  "GET /shops/:shopId/payments/:paymentId/cancel": member("payments.refund"),
  "POST /shops/:shopId/payments/:paymentId/cancel": member("payments.refund"),
  // A hold is taken or released by whoever may refund or cancel; a saved method is revoked likewise.
  "GET /shops/:shopId/payments/:paymentId/capture": member("payments.refund"),
  "POST /shops/:shopId/payments/:paymentId/capture": member("payments.refund"),
  "GET /shops/:shopId/methods": member("payments.view"),
  "GET /shops/:shopId/methods/:methodId/revoke": member("payments.refund"),
  "POST /shops/:shopId/methods/:methodId/revoke": member("payments.refund"),

  "GET /balance": member("balance.view"),
  "POST /balance/payouts": member("payouts.create"),
  "POST /balance/schedule": member("payouts.schedule"),
  "GET /balance/details": member("details.view"),
  "POST /balance/details": member("details.edit"),

  "GET /audit": member("audit.view"),
  "GET /audit.csv": member("audit.view"),

  "GET /team": member("team.view"),
  "POST /team/invites": member("team.invite"),
  "POST /team/invites/:inviteId/revoke": member("team.invite"),
  "POST /team/members/:userId/role": member("team.roles"),
  "POST /team/members/:userId/remove": member("team.roles"),
  "POST /team/settings": member("team.settings"),

  "GET /ops/shops": OPERATOR,
  "GET /ops/shops/:shopId": OPERATOR,
  "POST /ops/shops/:shopId/active": OPERATOR,
  "POST /ops/shops/:shopId/methods": OPERATOR,
  "POST /ops/shops/:shopId/tariff": OPERATOR,
  "GET /ops/payouts": OPERATOR,
  "POST /ops/payouts/export": OPERATOR,
  "GET /ops/payouts/batches/:batchId/file": OPERATOR,
  "POST /ops/payouts/statement": OPERATOR,
  "POST /ops/shops/:shopId/connectors": OPERATOR,
  "GET /ops/connectors": OPERATOR,
};
