import type { z } from "zod";
import type { ErrorBody } from "./api.ts";

/** Typed error codes carried in NATS replies; the gateway maps them to HTTP. */
export const ERROR_HTTP_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL: 500,
  BAD_GATEWAY: 502,
  UNAVAILABLE: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_HTTP_STATUS;

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

export function errorBody(statusCode: number, message: string | string[]): ErrorBody {
  const error = STATUS_NAMES[statusCode];
  return error ? { statusCode, message, error } : { statusCode, message };
}

/** Thrown by domain code; serve() turns it into an RPC error reply. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly messages: string | string[],
  ) {
    super(Array.isArray(messages) ? messages.join("; ") : messages);
  }
}

/** "path: message" for every zod issue, so a client sees every problem at once. */
export function formatIssues(error: Pick<z.ZodError, "issues">, prefix = ""): string[] {
  return error.issues.map((i) => {
    const path = [prefix, ...i.path.map(String)].filter(Boolean).join(".");
    return path ? `${path}: ${i.message}` : i.message;
  });
}

export type RpcError = { code: ErrorCode; message: string | string[] };
export type RpcReply<T> = { ok: true; data: T } | { ok: false; error: RpcError };
