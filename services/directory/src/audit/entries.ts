import { UNNAMED_CALLER, type AuditActor, type AuditEvent } from "@payaccept/contracts";
import { actorOf, auditEventOf, callIdOf, requestIdOf, type AuditFields, type Msg } from "@payaccept/platform";
import type { AuditEventRow } from "../store/schema.ts";

/** Who made a request, as the directory records it: the actor its caller named, and the request's ids. */
export type Caller = { actor: AuditActor; requestId?: string; callId?: string };

/** The caller of an RPC; one that named no actor (a tool's plain request) is recorded as such. */
export const callerOf = (msg: Msg): Caller => ({ actor: actorOf(msg) ?? UNNAMED_CALLER, requestId: requestIdOf(msg), callId: callIdOf(msg) });

/** An event as the audit table keeps it. */
export function auditRowOf(e: AuditEvent, recordedAt: number): AuditEventRow {
  return {
    id: e.id,
    at: Date.parse(e.at),
    action: e.action,
    accountId: e.accountId,
    shopId: e.shopId,
    actorKind: e.actor.kind,
    actorId: e.actor.id ?? null,
    actorLabel: e.actor.label,
    actorIp: e.actor.ip ?? null,
    actorUserAgent: e.actor.userAgent ?? null,
    targetType: e.target?.type ?? null,
    targetId: e.target?.id ?? null,
    before: e.before,
    after: e.after,
    requestId: e.requestId ?? null,
    recordedAt,
  };
}

/** A stored entry as the log's readers get it. */
export function auditEventOfRow(r: AuditEventRow): AuditEvent {
  const optional = <K extends string, V>(key: K, value: V | null) => (value === null ? {} : ({ [key]: value } as Record<K, V>));
  return {
    id: r.id,
    at: new Date(r.at).toISOString(),
    action: r.action,
    actor: { kind: r.actorKind, label: r.actorLabel, ...optional("id", r.actorId), ...optional("ip", r.actorIp), ...optional("userAgent", r.actorUserAgent) },
    accountId: r.accountId,
    shopId: r.shopId,
    target: r.targetType !== null && r.targetId !== null ? { type: r.targetType, id: r.targetId } : null,
    before: r.before,
    after: r.after,
    ...optional("requestId", r.requestId),
  };
}

/**
 * One of the directory's own actions as an audit row, written in the transaction that makes the
 * change (so the entry exists exactly when the change does). Its id is new unless the action
 * names one (a repeat of it is then one entry).
 */
export function entryOf(by: Caller, at: number, fields: Omit<AuditFields, "id" | "actor" | "at" | "requestId"> & { id?: string }): AuditEventRow {
  const event = auditEventOf({ ...fields, id: fields.id ?? Bun.randomUUIDv7(), actor: by.actor, at, requestId: by.requestId });
  return auditRowOf(event, at);
}
