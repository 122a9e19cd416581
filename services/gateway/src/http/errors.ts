import { DomainError, ERROR_HTTP_STATUS } from "@payaccept/contracts";
import { fromHttpException, jsonError } from "@payaccept/platform";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { GatewayEnv } from "./env.ts";

/**
 * Errors of the /api routes in the spec's Error shape: a DomainError (a typed reply from a
 * service, or UNAVAILABLE when it did not answer in time) keeps its code's status and messages.
 */
export function apiErrorResponse(err: Error, c: Context<GatewayEnv>): Response {
  if (err instanceof DomainError) {
    const status = ERROR_HTTP_STATUS[err.code];
    if (status >= 500) c.get("log").warn({ code: err.code, reason: err.reason, params: err.params }, "upstream failed");
    return jsonError(c, err);
  }
  if (err instanceof HTTPException) return jsonError(c, fromHttpException(err));
  c.get("log").error({ err }, "unhandled error");
  return jsonError(c, new DomainError("INTERNAL"));
}

/** `work`'s response, or its failure's in the Error shape (apiErrorResponse): what wraps it always has a response to read. */
export async function answered(c: Context<GatewayEnv>, work: () => Response | Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (e) {
    return apiErrorResponse(e as Error, c);
  }
}

/** 405 with Allow for a known path asked with a method it does not serve. */
export const methodNotAllowed =
  (allow: string[]) =>
  (c: Context): Response =>
    jsonError(c, new DomainError("METHOD_NOT_ALLOWED", { method: c.req.method, allowed: allow.join(", ") }), { Allow: allow.join(", ") });
