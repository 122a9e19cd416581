import { DomainError, errorBody, invalidRequest } from "@payaccept/contracts";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import type { z } from "zod";
import { safeEqual } from "./crypto.ts";
import { HTTPException } from "hono/http-exception";
import { REQUEST_ID } from "./bus.ts";
import type { Logger } from "./log.ts";
import { httpRequestDuration, registry } from "./metrics.ts";
import { exposeReadiness, readiness, type ReadinessCheck } from "./readiness.ts";
import { inHttpServerSpan, tracingOn } from "./tracing.ts";

/**
 * The logger of one request: every line carries the request's fields (its id, and what
 * middleware adds: the client's address, the shop). The fields are merged into each line as it
 * is written instead of making a pino child per request, which cost more than the line itself.
 */
export class RequestLog {
  private readonly fields: Record<string, unknown>;

  constructor(
    private readonly base: Logger,
    requestId: string,
  ) {
    this.fields = { requestId };
  }

  /** Fields for every later line of this request. */
  add(fields: Record<string, unknown>): void {
    Object.assign(this.fields, fields);
  }

  debug(obj: object, msg: string): void {
    if (this.base.isLevelEnabled("debug")) this.base.debug({ ...this.fields, ...obj }, msg);
  }
  info(obj: object, msg: string): void {
    this.base.info({ ...this.fields, ...obj }, msg);
  }
  warn(obj: object, msg: string): void {
    this.base.warn({ ...this.fields, ...obj }, msg);
  }
  error(obj: object, msg: string): void {
    this.base.error({ ...this.fields, ...obj }, msg);
  }
}

export type AppEnv = { Variables: { requestId: string; log: RequestLog } };

/**
 * Whose trace an inbound request joins (tracing.ts, inHttpServerSpan): a service its peers call
 * continues the caller's trace; a public face (the API, the payment page, the dashboard) starts its own.
 */
export type HttpAppOptions = { inboundTrace?: "continue" | "link" };

/**
 * Request id (inbound X-Request-Id if sane, else a new one), echoed on every response; the
 * request's span when tracing is on, the access log line inside it (with its trace id).
 */
export function requestContext(log: Logger, opts: HttpAppOptions = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const inbound = c.req.header("x-request-id");
    const requestId = inbound && REQUEST_ID.test(inbound) ? inbound : Bun.randomUUIDv7();
    c.set("requestId", requestId);
    c.set("log", new RequestLog(log, requestId));
    c.header("X-Request-Id", requestId);
    const handle = async () => {
      const started = performance.now();
      await next();
      const ms = performance.now() - started;
      const route = c.req.routePath || "unmatched";
      httpRequestDuration.observe({ method: c.req.method, route, status: String(c.res.status) }, ms / 1000);
      c.get("log").info(
        { method: c.req.method, path: c.req.path, route, status: c.res.status, ms: Math.round(ms * 10) / 10 },
        "request",
      );
      return { route, status: c.res.status };
    };
    if (tracingOn() && !UNTRACED.has(c.req.path)) await inHttpServerSpan(c.req.raw, c.req.path, opts.inboundTrace ?? "continue", handle);
    else await handle();
  };
}

/** Probes and scrapes make no trace: one every few seconds per replica, each saying nothing. */
const UNTRACED = new Set(["/healthz", "/readyz", "/metrics"]);

/** The spec's Error shape (with the reason as `code`) for any refusal. */
export function jsonError(c: Context, err: DomainError, headers?: Record<string, string>) {
  const body = errorBody(err);
  return c.json(body, body.statusCode as 400, headers);
}

/** An HTTPException from hono's own middleware as one of our reasons. */
export function fromHttpException(err: HTTPException): DomainError {
  if (err.status === 413) return new DomainError("FORM_TOO_LARGE");
  if (err.status === 400) return new DomainError("MALFORMED_JSON");
  return new DomainError("INTERNAL");
}

/** Unknown routes and uncaught errors in the Error shape, never a stack trace. */
export function installErrorHandlers(app: Hono<AppEnv>): void {
  app.notFound((c) => jsonError(c, new DomainError("ROUTE_NOT_FOUND", { method: c.req.method, path: c.req.path })));
  app.onError((err, c) => {
    if (err instanceof DomainError) return jsonError(c, err);
    if (err instanceof HTTPException) return jsonError(c, fromHttpException(err));
    (c.get("log") ?? console).error({ err }, "unhandled error");
    return jsonError(c, new DomainError("INTERNAL"));
  });
}

/**
 * /healthz (alive), /readyz (every dependency ready), /metrics (Prometheus). /readyz also asks
 * the store this process opened (`database`, store-readiness.ts), so no service wires that
 * check itself; `down` says what is not ready, for a check that says (NotReady). /metrics reports
 * the same checks as gauges (readiness.ts).
 */
export function healthRoutes(checks: Record<string, ReadinessCheck>): Hono<AppEnv> {
  exposeReadiness(checks);
  const app = new Hono<AppEnv>();
  app.get("/healthz", (c) => c.json({ status: "ok", pid: process.pid, uptimeSeconds: Math.round(process.uptime()) }));
  app.get("/readyz", async (c) => {
    const { ready, checks: results, down } = await readiness(checks);
    const body = Object.keys(down).length > 0 ? { status: "not ready", checks: results, down } : { status: ready ? "ready" : "not ready", checks: results };
    return c.json(body, ready ? 200 : 503);
  });
  app.get("/metrics", async (c) => c.text(await registry.metrics(), 200, { "Content-Type": registry.contentType }));
  return app;
}

/** A Hono app with request ids, access log, error shape and the health routes already mounted. */
export function createServiceApp(log: Logger, checks: Record<string, ReadinessCheck>, opts: HttpAppOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requestContext(log, opts));
  installErrorHandlers(app);
  app.route("/", healthRoutes(checks));
  return app;
}

/** A server-to-server JSON body checked against its schema; BAD_REQUEST lists every problem. */
export async function readJsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  let input: unknown;
  try {
    input = await c.req.json();
  } catch {
    throw new DomainError("MALFORMED_JSON");
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalidRequest(parsed.error);
  return parsed.data;
}

/** Server-to-server APIs of the emulators: `Authorization: Bearer <key>`, else 401. */
export function requireBearer(key: string): MiddlewareHandler {
  return async (c, next) => {
    const token = /^Bearer (.+)$/.exec(c.req.header("authorization") ?? "")?.[1];
    if (!token || !safeEqual(token, key)) return jsonError(c, new DomainError("BEARER_TOKEN_INVALID"));
    await next();
  };
}
