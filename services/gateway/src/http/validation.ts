import { invalidRequest } from "@payaccept/contracts";
import { jsonError } from "@payaccept/platform";
import type { Context } from "hono";
import type { z } from "zod";
import type { Check, GatewayEnv } from "./env.ts";

/**
 * `value` checked against `schema`: the spec's 400 Error shape listing every problem at once, or
 * the schema's output left for the handler (`c.req.valid(target)`).
 */
export function validated(c: Context<GatewayEnv>, target: "param" | "query" | "json", schema: z.ZodType, value: unknown): Response | undefined {
  const result = schema.safeParse(value);
  if (!result.success) return jsonError(c, invalidRequest(result.error));
  c.req.addValidatedData(target, result.data as object);
  return undefined;
}

/** A parameter given once is a string, one repeated an array of them (as Hono's validator reads a query). */
const queryOf = (c: Context<GatewayEnv>) => Object.fromEntries(Object.entries(c.req.queries()).map(([k, v]) => (v.length === 1 ? [k, v[0]] : [k, v])));

/** The path's parameters or the query checked against the operation's schema (the body's: jsonBody). */
export const validate = (target: "param" | "query", schema: z.ZodType): Check =>
  target === "param" ? (c) => validated(c, "param", schema, c.req.param()) : (c) => validated(c, "query", schema, queryOf(c));
