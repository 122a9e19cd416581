import type { z } from "zod";
import type { ErrorBody } from "./api.ts";
import {
  englishMessage,
  ERROR_HTTP_STATUS,
  REASONS,
  type AnyReasonParams,
  type IssueRule,
  type ParamArgs,
  type Reason,
  type TransportCode,
  type ValidationIssue,
} from "./reasons.ts";

export { ERROR_HTTP_STATUS };
/** The transport code of an error (decides the HTTP status); its reason says what happened. */
export type ErrorCode = TransportCode;

const STATUS_NAMES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** The spec's Error shape with the added machine-readable `code` (the reason) and its `params`. */
export function errorBody(err: DomainError): ErrorBody {
  const statusCode = ERROR_HTTP_STATUS[err.code];
  return { statusCode, message: err.messages, error: STATUS_NAMES[statusCode], code: err.reason, params: err.params };
}

/**
 * Thrown by domain code; serve() turns it into an RPC error reply and call() back into one.
 * `reason` (from the catalogue in reasons.ts) and `params` are what callers and pages act on;
 * `messages` is the English for the API and logs only.
 */
export class DomainError<R extends Reason = Reason> extends Error {
  readonly code: TransportCode;
  readonly params: AnyReasonParams;
  readonly messages: string | string[];
  constructor(
    readonly reason: R,
    ...params: ParamArgs<R>
  ) {
    const p = (params[0] ?? {}) as AnyReasonParams;
    const messages = englishMessage(reason, p);
    super(Array.isArray(messages) ? messages.join("; ") : messages);
    this.code = REASONS[reason].transport;
    this.params = p;
    this.messages = messages;
  }

  /**
   * Rebuilds an error from an RPC reply's envelope or a stored failure (no compile-time tie of
   * params to reason). A reason this build does not know (a newer peer) is INTERNAL, never a crash.
   */
  static of(reason: Reason, params: AnyReasonParams): DomainError {
    if (!Object.hasOwn(REASONS, reason)) return new DomainError("INTERNAL");
    return new (DomainError as new (r: Reason, p: AnyReasonParams) => DomainError)(reason, params);
  }

  /** The same error as an RPC reply's envelope carries it. */
  toRpc(): RpcError {
    return { code: this.code, reason: this.reason, params: this.params, message: this.messages };
  }
}

/** Is this a refusal for one of these reasons? */
export const isReason = <R extends Reason>(e: unknown, ...reasons: R[]): e is DomainError<R> =>
  e instanceof DomainError && (reasons as Reason[]).includes(e.reason);

const ISSUE_FIELDS = ["origin", "minimum", "maximum", "inclusive", "expected", "format", "divisor"] as const;

/**
 * Every zod issue as a ValidationIssue, so a client sees every problem at once and a page can
 * translate each from its code and figures. Our refinements put their `rule` in the issue's params.
 */
export function issuesOf(error: Pick<z.ZodError, "issues">, prefix = ""): ValidationIssue[] {
  return error.issues.map((i) => {
    const path = [prefix, ...i.path.map(String)].filter(Boolean).join(".");
    const params: ValidationIssue["params"] = {};
    const raw = i as unknown as Record<string, unknown>;
    for (const f of ISSUE_FIELDS) {
      const v = raw[f];
      if (typeof v === "string" || typeof v === "boolean") params[f] = v;
      else if (typeof v === "number" || typeof v === "bigint") params[f] = Number(v);
    }
    if (Array.isArray(raw.values)) params.values = raw.values.map(String).join(", ");
    if (Array.isArray(raw.keys)) params.keys = raw.keys.join(", ");
    if (i.code === "custom" && i.params) {
      for (const [k, v] of Object.entries(i.params)) if (typeof v === "string" || typeof v === "number") params[k] = v;
    }
    return { path, issue: i.code, params, message: i.message };
  });
}

/** A custom issue of ours (not from zod's parse), with its rule. */
export const customIssue = (path: string, rule: IssueRule, message: string, extra: Record<string, string | number> = {}): ValidationIssue => ({
  path,
  issue: "custom",
  params: { rule, ...extra },
  message,
});

/** BAD_REQUEST VALIDATION_FAILED for these issues. */
export const validationFailed = (issues: ValidationIssue[]) => new DomainError("VALIDATION_FAILED", { issues });
export const invalidRequest = (error: Pick<z.ZodError, "issues">, prefix = "") => validationFailed(issuesOf(error, prefix));

export type RpcError = { code: ErrorCode; reason: Reason; params: AnyReasonParams; message: string | string[] };
export type RpcReply<T> = { ok: true; data: T } | { ok: false; error: RpcError };

/** "path: message" for every zod issue: the English the API's message lists. */
export const formatIssues = (error: Pick<z.ZodError, "issues">, prefix = ""): string[] =>
  englishMessage("VALIDATION_FAILED", { issues: issuesOf(error, prefix) }) as string[];

/** A reason with its parameters as a value (a failed attempt, a FAILED refund), not thrown. A DomainError is one. */
export type Failure = { reason: Reason; params: AnyReasonParams };
export const failure = <R extends Reason>(reason: R, ...params: ParamArgs<R>): Failure => ({ reason, params: (params[0] ?? {}) as AnyReasonParams });
/** The English of a failure, for the API's text fields and logs. */
export const failureText = (f: Failure): string => String(englishMessage(f.reason, f.params));
