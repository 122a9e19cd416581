import { isIdempotent, operations, type AuditActor, type Fields, type Operation, type OperationId, type Operations } from "@payaccept/contracts";
import { callForRelay, type NatsConnection } from "@payaccept/platform";
import type { Context, Handler, Hono, MiddlewareHandler } from "hono";
import type { z } from "zod";
import { requireApiKey } from "../http/auth.ts";
import type { GatewayEnv } from "../http/env.ts";
import { methodNotAllowed } from "../http/errors.ts";
import { jsonBody } from "../http/json-body.ts";
import type { KeyDirectory } from "../http/key-directory.ts";
import { limitPerKey } from "../http/rate-limit.ts";
import type { SlidingWindowLimiter } from "../http/rate-limiter.ts";
import { validate } from "../http/validation.ts";
import type { IdempotencyClaims } from "../idempotency/claims.ts";
import { idempotent } from "../idempotency/middleware.ts";

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

/** The validator as one link of a chain; the handler's types come from the definition (Validated). */
const check = (target: "param" | "query" | "json", schema: z.ZodType) => validate(target, schema) as MiddlewareHandler as MiddlewareHandler<GatewayEnv>;

/** Whether the owning service keeps this request's Idempotency-Key with its write (the operation's `keyKeptWithWrite`). */
const keptWithWrite = (op: Operation) => {
  const kept = op.keyKeptWithWrite;
  return kept && ((c: Context<GatewayEnv>) => kept.applies(c.req.valid("json" as never)));
};

/** `/v1/payments/{id}` → `/v1/payments/:id`. */
export const honoPath = (template: string) => template.replace(/\{(\w+)\}/g, ":$1");

/**
 * Registers every operation of the table with its handler. Each route's chain is assembled here,
 * once, from the definition, in the gateway's order of checks (docs/gateway.md): API key → per-key
 * limit of its class → path and query validation → body (read, then validated) → Idempotency-Key
 * (every POST) → handler. Then each known path answers its other methods with 405 and Allow.
 * The per-IP limit and the route lookup come before, from the app.
 */
export function registerOperations(api: Hono<GatewayEnv>, handlers: OperationHandlers, deps: OperationDeps): void {
  const auth = requireApiKey(deps.directory);
  const bodies = { required: jsonBody(deps.maxBodyBytes), optional: jsonBody(deps.maxBodyBytes, { optional: true }) };
  const methods = new Map<string, string[]>();
  for (const [id, op] of Object.entries(operations) as [OperationId, Operation][]) {
    const timeoutMs = op.callTimeout === "slow" ? deps.slowCallTimeoutMs : deps.rpcTimeoutMs;
    const status = op.success.status;
    const path = honoPath(op.path);
    const method = op.method.toUpperCase();
    const chain: MiddlewareHandler<GatewayEnv>[] = [auth, limitPerKey(deps.limiters[op.rateLimit], method, path)];
    if (op.params) chain.push(check("param", op.params.schema));
    if (op.query) chain.push(check("query", op.query.schema));
    if (op.body) chain.push(op.body.optional ? bodies.optional : bodies.required, check("json", op.body.schema));
    if (isIdempotent(op)) chain.push(idempotent(deps.claims, deps.nc, timeoutMs, keptWithWrite(op)));
    const ask: OperationTools["ask"] = (c, rpc, req, actor) => callForRelay(deps.nc, rpc, req, timeoutMs, { requestId: c.get("requestId"), actor });
    const tools: OperationTools = { timeoutMs, status, ask, relay: async (c, rpc, req, actor) => c.body(await ask(c, rpc, req, actor), status, JSON_TYPE) };
    api.on(method, [path], ...chain, handlers[id](tools) as Handler<GatewayEnv>);
    methods.set(path, [...(methods.get(path) ?? []), method]);
  }
  for (const [path, allowed] of methods) api.all(path, methodNotAllowed(allowed.sort()));
}
