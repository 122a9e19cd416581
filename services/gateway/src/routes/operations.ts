import { isIdempotent, operations, type AuditActor, type Fields, type Operation, type OperationId, type Operations } from "@payaccept/contracts";
import { callForRelay, type NatsConnection } from "@payaccept/platform";
import type { Context, Handler, Hono } from "hono";
import type { z } from "zod";
import { requireApiKey } from "../http/auth.ts";
import type { Check, GatewayEnv } from "../http/env.ts";
import { answered, methodNotAllowed } from "../http/errors.ts";
import { jsonBody } from "../http/json-body.ts";
import type { KeyDirectory } from "../http/key-directory.ts";
import { limitPerKey, type Admitted } from "../http/rate-limit.ts";
import type { SlidingWindowLimiter } from "../http/rate-limiter.ts";
import { validate } from "../http/validation.ts";
import type { IdempotencyClaims } from "../idempotency/claims.ts";
import { idempotent, type Answer } from "../idempotency/middleware.ts";

const JSON_TYPE = { "Content-Type": "application/json" };

export type OperationDeps = {
  nc: NatsConnection;
  directory: KeyDirectory;
  limiters: { perMethod: SlidingWindowLimiter; balance: SlidingWindowLimiter };
  maxBodyBytes: number;
  /** Bound of every NATS request: a missing or stuck service is a 503, never a hang. */
  rpcTimeoutMs: number;
  /** Bound of the operations that wait for a merchant's server (the test webhook). */
  slowCallTimeoutMs: number;
  claims: IdempotencyClaims;
};

/** What the validators leave for the handler (`c.req.valid(...)`), typed from the definition. */
type Validated<O> = (O extends { params: Fields<infer S> } ? { param: z.output<S> } : {}) &
  (O extends { query: Fields<infer S> } ? { query: z.output<S> } : {}) &
  (O extends { body: { schema: infer S extends z.ZodType } } ? { json: z.output<S> } : {});

type Rpc = Parameters<typeof callForRelay>[1];

/** Fixed per operation at registration, from its definition. */
export type OperationTools = {
  /** The operation's NATS bound (`callTimeout` of the definition). */
  timeoutMs: number;
  /** The definition's success status. */
  status: 200 | 201;
  /** One NATS request: the reply's data as the service encoded it. `actor` names the key for the audit log (the writes its owner records). */
  ask: <R extends Rpc>(c: Context<GatewayEnv>, rpc: R, req: Parameters<typeof callForRelay<R>>[2], actor?: AuditActor) => Promise<Uint8Array<ArrayBuffer>>;
  /** ask(), its data relayed as the response body with the success status. */
  relay: <R extends Rpc>(c: Context<GatewayEnv>, rpc: R, req: Parameters<typeof callForRelay<R>>[2], actor?: AuditActor) => Promise<Response>;
};

export type OperationHandlers = {
  [K in OperationId]: (tools: OperationTools) => Handler<GatewayEnv, string, { out: Validated<Operations[K]> }>;
};

/** Whether the owning service keeps this request's Idempotency-Key with its write (the operation's `keyKeptWithWrite`). */
const keptWithWrite = (op: Operation) => {
  const kept = op.keyKeptWithWrite;
  return kept && ((c: Context<GatewayEnv>) => kept.applies(c.req.valid("json" as never)));
};

/** `/v1/payments/{id}` → `/v1/payments/:id`. */
export const honoPath = (template: string) => template.replace(/\{(\w+)\}/g, ":$1");

/** Every /api route's way in: the per-IP limit, then `admitted` (routes/api.ts). */
export type Admit = (c: Context<GatewayEnv>, admitted: Admitted) => Promise<Response>;

/**
 * The checks in order, then the answer (around it the Idempotency-Key's handling, where the
 * operation takes one): one route handler of plain function calls. A layer of Hono middleware per
 * check cost a dispatch, a promise and, mounted under /api, an error-handling wrapper each.
 */
function operationRoute(admit: Admit, checks: Check[], answer: Answer, around?: (c: Context<GatewayEnv>, answer: Answer) => Promise<Response>) {
  const run = async (c: Context<GatewayEnv>): Promise<Response> => {
    for (const check of checks) {
      const checked = check(c);
      const refused = checked instanceof Promise ? await checked : checked;
      if (refused) return refused;
    }
    return around ? around(c, answer) : answer(c);
  };
  return (c: Context<GatewayEnv>) => admit(c, () => run(c));
}

/**
 * Registers every operation of the table with its handler. Each route's chain is assembled here,
 * once, from the definition, in the gateway's order of checks (docs/gateway.md): API key → per-key
 * limit of its class → path and query validation → body (read, then validated) → Idempotency-Key
 * (every POST) → handler. Then each known path answers its other methods with 405 and Allow.
 * The route lookup comes before, from the app, and every route's answer goes through `admit`.
 */
export function registerOperations(api: Hono<GatewayEnv>, handlers: OperationHandlers, deps: OperationDeps, admit: Admit): void {
  const auth = requireApiKey(deps.directory);
  const methods = new Map<string, string[]>();
  for (const [id, op] of Object.entries(operations) as [OperationId, Operation][]) {
    const timeoutMs = op.callTimeout === "slow" ? deps.slowCallTimeoutMs : deps.rpcTimeoutMs;
    const status = op.success.status;
    const path = honoPath(op.path);
    const method = op.method.toUpperCase();
    const checks: Check[] = [auth, limitPerKey(deps.limiters[op.rateLimit], method, path)];
    if (op.params) checks.push(validate("param", op.params.schema));
    if (op.query) checks.push(validate("query", op.query.schema));
    if (op.body) checks.push(jsonBody(deps.maxBodyBytes, op.body.schema, { optional: op.body.optional }));
    const ask: OperationTools["ask"] = (c, rpc, req, actor) => callForRelay(deps.nc, rpc, req, timeoutMs, { requestId: c.get("requestId"), actor });
    const tools: OperationTools = { timeoutMs, status, ask, relay: async (c, rpc, req, actor) => c.body(await ask(c, rpc, req, actor), status, JSON_TYPE) };
    const handle = handlers[id](tools) as (c: Context<GatewayEnv>) => Response | Promise<Response>;
    // The handler's failure answered here, so that the Idempotency-Key's handling sees its status.
    const answer: Answer = (c) => answered(c, () => handle(c));
    const around = isIdempotent(op) ? idempotent(deps.claims, deps.nc, timeoutMs, keptWithWrite(op)) : undefined;
    api.on(method, [path], operationRoute(admit, checks, answer, around));
    methods.set(path, [...(methods.get(path) ?? []), method]);
  }
  for (const [path, allowed] of methods) {
    const refuse = methodNotAllowed(allowed.sort());
    api.all(path, (c) => admit(c, () => refuse(c)));
  }
}
