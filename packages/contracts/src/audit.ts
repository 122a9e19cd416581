import { z } from "zod";
import { IsoDateTime } from "./primitives.ts";

/**
 * The audit log (docs/directory.md, "Audit log"): every security-relevant action, append-only,
 * kept by the directory. A service records an action by publishing an AuditEvent to the AUDIT
 * stream (platform's AuditTrail); the directory writes its own actions in the transaction that
 * makes them. Either way the event's id is its key: a copy (a retry, a hedged call, a redelivery)
 * is recorded once.
 */
export const AUDIT_STREAM = "AUDIT";
export const AUDIT_SUBJECT_PREFIX = "audit.v1";

/**
 * The NATS header that carries who asks, on a request made for someone (a member in the dashboard,
 * an API key at the gateway, an operator's CLI): its owner records the action in their name.
 * JSON of AuditActor; the bus is internal, so a header is as trusted as the request it rides on.
 */
export const ACTOR_HEADER = "Payaccept-Actor";

export const ACTOR_KINDS = [
  /** A merchant's dashboard user (id: user id, label: email). */
  "member",
  /** Platform staff signed in to the dashboard (id: user id, label: email). */
  "operator",
  /** A shop's API key at the gateway (id: key id, label: its prefix, e.g. pk_live_AbCd). */
  "apiKey",
  /** `bun run admin` (label: the OS user and host it ran as). */
  "cli",
  /** The platform itself: an overlap that ran out. */
  "system",
] as const;
export const ActorKind = z.enum(ACTOR_KINDS);
export type ActorKind = z.infer<typeof ActorKind>;

export const AuditActor = z.object({
  kind: ActorKind,
  id: z.string().max(100).optional(),
  /** What a person reads: an email, a key prefix, user@host. */
  label: z.string().min(1).max(320),
  /** The client's address (behind TRUSTED_PROXIES), when the action came over HTTP. */
  ip: z.string().max(64).optional(),
  userAgent: z.string().max(512).optional(),
  /** A member's role in their team when they acted (owner, admin, developer, …). */
  role: z.string().max(40).optional(),
});
export type AuditActor = z.infer<typeof AuditActor>;

/** The platform acting on its own (an overlap that ran out). */
export const SYSTEM_ACTOR: AuditActor = { kind: "system", label: "payaccept" };
/** A request whose caller named nobody (a tool's plain NATS request): recorded, and said so. */
export const UNNAMED_CALLER: AuditActor = { kind: "system", label: "unnamed caller" };

/**
 * What can be recorded. The names are `<thing>.<what happened>`; a new action is added here (and
 * its words in the dashboard's messages) before anyone records it.
 */
export const AUDIT_ACTIONS = [
  // shops and their settings (directory)
  "shop.created",
  "shop.settings_changed",
  "shop.webhook_url_changed",
  "shop.activated",
  "shop.deactivated",
  // API keys (directory)
  "api_key.issued",
  "api_key.rolled",
  "api_key.overlap_ended",
  "api_key.expired",
  // webhook signing secrets (directory)
  "signing_secret.revealed",
  "signing_secret.rotated",
  "signing_secret.overlap_ended",
  "signing_secret.expired",
  // money moved on someone's request (payments, balance)
  "refund.created",
  "payout.created",
  /** An operator recorded what the bank said of a payout outside a statement (admin CLI). */
  "payout.outcome_recorded",
  /** The account's payout schedule set or turned off. */
  "payout_schedule.changed",
  // who the account is and where its payouts go (directory)
  "account.details_changed",
  // holds, merchant-initiated charges and saved methods (payments, issue 18)
  "payment.captured",
  "payment.voided",
  "charge.created",
  "payment_method.revoked",
  // the dashboard's members and sign-in (issue 19, items 1–2)
  "member.signed_in",
  "member.sign_in_failed",
  /** A sign-in (password or second factor) locked after too many failures. */
  "member.sign_in_locked",
  "member.invited",
  "member.invite_revoked",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "two_factor.enabled",
  "two_factor.disabled",
  /** The platform's staff removed a member's second factor (admin CLI): they enrol again. */
  "two_factor.reset",
  "two_factor.required_changed",
] as const;
export const AuditAction = z.enum(AUDIT_ACTIONS);
export type AuditAction = z.infer<typeof AuditAction>;

/** A JSON object: what changed, before and after (never a secret). */
const Facts = z.record(z.string(), z.unknown());

export const AuditEvent = z.object({
  /** Unique per action: a copy of the same action carries the same id and is recorded once. */
  id: z.string().min(1).max(200),
  /** When it happened, on the recording service's store clock. */
  at: IsoDateTime,
  action: AuditAction,
  actor: AuditActor,
  accountId: z.string().nullable(),
  shopId: z.string().nullable(),
  /** What was acted on besides the shop: a payment, a refund, a payout, a key, a member. */
  target: z.object({ type: z.string().min(1).max(40), id: z.string().min(1).max(200) }).nullable(),
  before: Facts.nullable(),
  after: Facts.nullable(),
  /** The request that caused it (X-Request-Id), when one did. */
  requestId: z.string().max(128).optional(),
});
export type AuditEvent = z.infer<typeof AuditEvent>;

export const auditSubject = (action: AuditAction) => `${AUDIT_SUBJECT_PREFIX}.${action}`;

/** Where a page of the log starts: entries older than this one (newest first). */
export const AuditCursor = z.object({ at: IsoDateTime, id: z.string() });
export type AuditCursor = z.infer<typeof AuditCursor>;

/** What the log can be narrowed to; every filter is optional. */
export const AuditFilter = z.object({
  /** Absent only for operators (the admin CLI): every account. */
  accountId: z.string().optional(),
  shopId: z.string().optional(),
  action: AuditAction.optional(),
  /** The actor's label (an email, a key prefix, user@host) or id, exactly. */
  actor: z.string().min(1).max(320).optional(),
  from: IsoDateTime.optional(),
  to: IsoDateTime.optional(),
});
export type AuditFilter = z.infer<typeof AuditFilter>;
