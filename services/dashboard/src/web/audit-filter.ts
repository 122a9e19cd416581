import { AuditAction, type AuditCursor, type AuditFilter } from "@payaccept/contracts";
import { moscowDayBounds } from "@payaccept/domain";

/** The audit page's filter as the form holds it: who, what, which shop, Moscow days. */
export type AuditForm = { actor: string; action: string; shop: string; from: string; to: string };

export const AUDIT_PER_PAGE = 50;

export function readAuditForm(query: (name: string) => string | undefined): AuditForm {
  const field = (name: string, max: number) => (query(name) ?? "").trim().slice(0, max);
  return { actor: field("actor", 320), action: field("action", 64), shop: field("shop", 100), from: field("from", 10), to: field("to", 10) };
}

/**
 * What the form asks the directory for, within the account; a malformed day or action, or a
 * period that ends before it starts, is a problem to show instead.
 */
export function auditRequest(form: AuditForm, accountId: string): { ok: true; filter: AuditFilter } | { ok: false } {
  const from = form.from ? moscowDayBounds(form.from) : undefined;
  const to = form.to ? moscowDayBounds(form.to) : undefined;
  const action = form.action ? AuditAction.safeParse(form.action) : undefined;
  if ((form.from && !from) || (form.to && !to) || (from && to && from.first > to.last) || (action && !action.success)) return { ok: false };
  return {
    ok: true,
    filter: {
      accountId,
      ...(form.actor ? { actor: form.actor } : {}),
      ...(action?.success ? { action: action.data } : {}),
      ...(form.shop ? { shopId: form.shop } : {}),
      ...(from ? { from: from.first } : {}),
      ...(to ? { to: to.last } : {}),
    },
  };
}

/** The page's query string: the filter, and where an older page starts. */
export function auditQuery(form: AuditForm, before?: AuditCursor): string {
  const q = new URLSearchParams(Object.entries(form).filter(([, v]) => v !== ""));
  if (before) q.set("before", `${before.at}|${before.id}`);
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** `before=<at>|<id>` back into a cursor; anything else is the first page. */
export function readCursor(raw: string | undefined): AuditCursor | undefined {
  const bar = raw?.indexOf("|") ?? -1;
  if (!raw || bar < 1) return undefined;
  const at = raw.slice(0, bar);
  return Number.isNaN(Date.parse(at)) ? undefined : { at, id: raw.slice(bar + 1) };
}
