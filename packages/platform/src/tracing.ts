import type * as OtelApi from "@opentelemetry/api";
import type { Attributes, Context, Link, Span, TextMapGetter, TextMapSetter, Tracer } from "@opentelemetry/api";
import type * as Semconv from "@opentelemetry/semantic-conventions";
import type { TracingConfig } from "./config.ts";

/**
 * Traces with OpenTelemetry (docs/observability.md, "Traces"). Off unless OTEL_EXPORTER_OTLP_ENDPOINT
 * (or …_TRACES_ENDPOINT) is set: then `tracer` stays undefined, every hook below returns at its
 * first line and no span, context or header is ever made, so the hot path pays one comparison.
 */
let tracer: Tracer | undefined;
// The API and the attribute names, set with `tracer` (from tracing-sdk.ts): a process with tracing off
// never loads them, about 500 KiB of source kept resident (docs/performance.md, "Memory").
let api!: typeof OtelApi;
let attr!: typeof Semconv;

export const tracingOn = (): boolean => tracer !== undefined;

/**
 * A span's W3C trace context as the headers that carry it: `traceparent` (and `tracestate`). It
 * travels in NATS and HTTP headers and is stored with an outbox row, so that the relay publishing
 * the row later continues the trace of the request that wrote it.
 */
export type TraceCarrier = { traceparent: string; tracestate?: string };

/** What is left to do at shutdown: export the spans still buffered. */
export type Tracing = { shutdown: () => Promise<void> };

/** OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces (the OTLP rule); undefined: off. */
export function tracesUrl(cfg: TracingConfig): string | undefined {
  if (cfg.OTEL_SDK_DISABLED) return undefined;
  if (cfg.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return cfg.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (!cfg.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  return `${cfg.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`;
}

/**
 * Sets up tracing for the process when an endpoint is configured (tracing-sdk.ts). The SDK and its
 * exporters are loaded only then: they take longer to load than the rest of a service's start, and
 * a process without an endpoint never uses them.
 */
export function startTracing(service: string, cfg: TracingConfig): Tracing | undefined {
  const url = tracesUrl(cfg);
  if (url === undefined || tracer) return undefined;
  // require() is synchronous in Bun: the logger made right after already sees tracing on.
  const { startSdk } = require("./tracing-sdk.ts") as typeof import("./tracing-sdk.ts");
  const sdk = startSdk(service, cfg, url);
  ({ api, attr } = sdk);
  tracer = sdk.tracer;
  return { shutdown: sdk.shutdown };
}

/** Header carriers: NATS headers (get/set/keys) and fetch's Headers alike. */
type HeaderBag = { get(k: string): string | null | undefined; set(k: string, v: string): void };
const getter: TextMapGetter<HeaderBag> = {
  get: (bag, key) => bag.get(key) || undefined,
  keys: () => ["traceparent", "tracestate"],
};
const setter: TextMapSetter<HeaderBag> = { set: (bag, key, value) => bag.set(key, value) };
const recordGetter: TextMapGetter<TraceCarrier> = {
  get: (c, key) => (key === "traceparent" ? c.traceparent : key === "tracestate" ? c.tracestate : undefined),
  keys: () => ["traceparent", "tracestate"],
};

const contextOf = (headers: HeaderBag | undefined): Context => (headers ? api.propagation.extract(api.ROOT_CONTEXT, headers, getter) : api.ROOT_CONTEXT);

/** The current span's trace context, to store with a write whose effect is published later; undefined when off or outside a span. */
export function traceCarrier(): TraceCarrier | undefined {
  if (!tracer || !api.trace.getActiveSpan()) return undefined;
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.context.active(), carrier);
  return carrier.traceparent ? (carrier as TraceCarrier) : undefined;
}

/** The trace and span ids of the current span, for a log line; undefined when off or outside a span. */
export function currentTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = tracer && api.trace.getActiveSpan();
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/** The trace id a carrier names (for the log line of work done in a stored context). */
export const traceIdOf = (carrier: TraceCarrier | null | undefined): string | undefined => carrier?.traceparent.split("-")[1];

/** Adds attributes to the current span (what only the code inside it knows: a delivery id, an attempt number). */
export function annotateSpan(attributes: Attributes): void {
  if (tracer) api.trace.getActiveSpan()?.setAttributes(attributes);
}

/** The spans already linked by linkTrace, so that work reading its object twice links once. */
const linked = new WeakSet<Span>();

/**
 * Marks the current span as work on one object (`attributes`: its id, what a trace search finds
 * it by) and links it to the span `origin` names when that is another trace: the trace that made
 * the object (a payment's create), so that work done on it later in traces of its own (a buyer's
 * page, a bank's callback) leads back to it.
 */
export function linkTrace(origin: TraceCarrier | null | undefined, attributes: Attributes): void {
  const span = tracer && api.trace.getActiveSpan();
  if (!span) return;
  span.setAttributes(attributes);
  const context = origin && api.trace.getSpanContext(api.propagation.extract(api.ROOT_CONTEXT, origin, recordGetter));
  if (!context || context.traceId === span.spanContext().traceId || linked.has(span)) return;
  span.addLink({ context });
  linked.add(span);
}

/**
 * The span with its attributes when it records; a span of a trace not sampled that the sampler
 * did not record (tracing-sdk.ts: all but the server and consumer spans) gets none, and the
 * attributes are not even made: most spans at the default sampling.
 */
function recording(span: Span, attributes: () => Attributes): Span {
  if (span.isRecording()) span.setAttributes(attributes());
  return span;
}

/**
 * Ends a span with its outcome: `ok`, or an error code (the transport's or the reply's) with the
 * reason; `failed` marks the span as an error (its status), which a trace viewer shows in red.
 */
function finish(span: Span, outcome: string, reason: string | undefined, failed: boolean): void {
  span.setAttribute("payaccept.outcome", outcome);
  if (reason !== undefined) span.setAttribute(attr.ATTR_ERROR_TYPE, reason);
  if (failed) span.setStatus({ code: api.SpanStatusCode.ERROR, message: reason ?? outcome });
  span.end();
}

// ---- NATS request/reply -------------------------------------------------------------------------

const natsAttributes = (subject: string): Attributes => ({ "messaging.system": "nats", "messaging.destination.name": subject, "rpc.system": "nats", "rpc.method": subject });

/**
 * The client span of one NATS call, child of the current span; its context goes into the request's
 * headers (every copy of a hedged call carries the same). undefined when off.
 */
export function startRpcClientSpan(subject: string, headers: HeaderBag): Span | undefined {
  if (!tracer) return undefined;
  const span = recording(tracer.startSpan(subject, { kind: api.SpanKind.CLIENT }), () => natsAttributes(subject));
  api.propagation.inject(api.trace.setSpan(api.context.active(), span), headers, setter);
  return span;
}

/** A client span's end: every reply that is not ok is an error of the call. */
export function endRpcClientSpan(span: Span | undefined, outcome: string, reason?: string): void {
  if (span) finish(span, outcome, reason, outcome !== "ok");
}

/** The copy of a hedged call, as an event of its span. */
export function noteCopy(span: Span | undefined): void {
  span?.addEvent("copy sent");
}

/**
 * Runs a responder's handler inside the server span of the request, child of the caller's span
 * (from the message's headers). `run` gets the span to end with endRpcServerSpan.
 */
export function inRpcServerSpan<T>(subject: string, headers: HeaderBag | undefined, run: (span: Span | undefined) => T): T {
  if (!tracer) return run(undefined);
  const parent = contextOf(headers);
  const span = tracer.startSpan(subject, { kind: api.SpanKind.SERVER, attributes: natsAttributes(subject) }, parent);
  return api.context.with(api.trace.setSpan(parent, span), run, undefined, span);
}

/** A server span's end: a refusal is the caller's error; only a failure of the responder (INTERNAL) is the span's own. */
export function endRpcServerSpan(span: Span | undefined, outcome: string, reason?: string): void {
  if (span) finish(span, outcome, reason, outcome === "INTERNAL");
}

// ---- JetStream ------------------------------------------------------------------------------------

/**
 * The producer span of one JetStream publish: child of the stored context when the message is
 * published for an earlier write (an outbox row; null when it kept none), else of the current span. Its context goes into
 * the message's headers for the consumers. undefined when off.
 */
export function startPublishSpan(subject: string, msgId: string, headers: HeaderBag, stored: TraceCarrier | null | undefined): Span | undefined {
  if (!tracer) return undefined;
  // null: a stored write that kept no context (tracing was off, or no trace caused it) begins its own trace.
  const parent = stored ? api.propagation.extract(api.ROOT_CONTEXT, stored, recordGetter) : stored === null ? api.ROOT_CONTEXT : api.context.active();
  const span = recording(tracer.startSpan(`publish ${subject}`, { kind: api.SpanKind.PRODUCER }, parent), () => ({
    "messaging.system": "nats",
    "messaging.operation.type": "send",
    "messaging.destination.name": subject,
    "messaging.message.id": msgId,
  }));
  api.propagation.inject(api.trace.setSpan(parent, span), headers, setter);
  return span;
}

/** A publish's end: `duplicate` when the stream already had the message (a re-publish after a crash). */
export function endPublishSpan(span: Span | undefined, result: { duplicate: boolean } | { error: unknown }): void {
  if (!span) return;
  if ("error" in result) return finish(span, "failed", (result.error as Error)?.name ?? "Error", true);
  span.setAttribute("messaging.nats.duplicate", result.duplicate);
  finish(span, "ok", undefined, false);
}

/**
 * Runs a consumer's handler for one message inside its consumer span, a child of the publish span
 * (the message's headers): every delivery of the message, redeliveries included, is a child of
 * the one publish, so a payment's trace shows each try (docs/observability.md, "Traces").
 */
export async function inConsumeSpan(
  m: { subject: string; seq: number; headers?: HeaderBag; info: { deliveryCount: number } },
  consumer: string,
  run: () => Promise<void>,
): Promise<void> {
  if (!tracer) return run();
  const parent = contextOf(m.headers);
  const span = tracer.startSpan(
    `process ${m.subject}`,
    {
      kind: api.SpanKind.CONSUMER,
      attributes: {
        "messaging.system": "nats",
        "messaging.operation.type": "process",
        "messaging.destination.name": m.subject,
        "messaging.consumer.group.name": consumer,
        "messaging.nats.stream_sequence": m.seq,
        "messaging.nats.delivery_count": m.info.deliveryCount,
      },
    },
    parent,
  );
  try {
    await api.context.with(api.trace.setSpan(parent, span), run);
    finish(span, "ok", undefined, false);
  } catch (e) {
    finish(span, "failed", (e as Error)?.name ?? "Error", true);
    throw e;
  }
}

// ---- HTTP ------------------------------------------------------------------------------------------

/**
 * The server span of one HTTP request, around `handle`, which returns the route matched and the
 * status answered. A service reached by its own peers (payments' provider callback, the
 * acquirer's API) continues the caller's trace (`continue`); a public face (the API, the payment
 * page, the dashboard) starts its own and keeps the caller's as a link (`link`), so that nobody
 * outside decides our sampling or writes into a trace of ours.
 */
export async function inHttpServerSpan(
  req: Request,
  path: string,
  inbound: "continue" | "link",
  handle: () => Promise<{ route: string; status: number }>,
): Promise<void> {
  if (!tracer) {
    await handle();
    return;
  }
  const callers = contextOf(req.headers);
  const callerSpan = api.trace.getSpanContext(callers);
  const parent = inbound === "continue" ? callers : api.ROOT_CONTEXT;
  const links: Link[] = inbound === "link" && callerSpan ? [{ context: callerSpan }] : [];
  const span = tracer.startSpan(req.method, { kind: api.SpanKind.SERVER, attributes: { [attr.ATTR_HTTP_REQUEST_METHOD]: req.method, "url.path": path }, links }, parent);
  try {
    const { route, status } = await api.context.with(api.trace.setSpan(parent, span), handle);
    span.updateName(`${req.method} ${route}`);
    span.setAttributes({ [attr.ATTR_HTTP_ROUTE]: route, [attr.ATTR_HTTP_RESPONSE_STATUS_CODE]: status });
    finish(span, status >= 500 ? String(status) : "ok", undefined, status >= 500);
  } catch (e) {
    finish(span, "failed", (e as Error)?.name ?? "Error", true);
    throw e;
  }
}

/** How a client span ended: `outcome` ok or what went wrong, with the HTTP status when there was one. */
export type ClientOutcome = { outcome: string; httpStatus?: number | null; reason?: string; failed: boolean };

/**
 * Runs `run` inside a client span named `name` (its attributes made only when tracing is on); `run` gets the function that puts the span's
 * trace context into its request's headers, and `outcomeOf` reads the span's end from the result
 * (a thrown error ends it as failed). `run()` alone when off.
 */
export async function inClientSpan<T>(
  name: string,
  attributes: () => Attributes,
  run: (inject: (headers: HeaderBag) => void) => Promise<T>,
  outcomeOf: (result: T) => ClientOutcome,
): Promise<T> {
  if (!tracer) return run(() => {});
  const span = recording(tracer.startSpan(name, { kind: api.SpanKind.CLIENT }), attributes);
  const inContext = api.trace.setSpan(api.context.active(), span);
  try {
    const result = await api.context.with(inContext, run, undefined, (headers: HeaderBag) => api.propagation.inject(inContext, headers, setter));
    const { outcome, httpStatus, reason, failed } = outcomeOf(result);
    if (httpStatus != null) span.setAttribute(attr.ATTR_HTTP_RESPONSE_STATUS_CODE, httpStatus);
    finish(span, outcome, reason, failed);
    return result;
  } catch (e) {
    finish(span, "failed", (e as Error)?.name ?? "Error", true);
    throw e;
  }
}

/** The attributes of an HTTP client span (while tracing is on: inClientSpan's `attributes`); the URL's path only when `withPath` (not a merchant's URL: it may hold their token). */
export function httpClientAttributes(method: string, url: string, withPath: boolean): Attributes {
  const target = new URL(url);
  return {
    [attr.ATTR_HTTP_REQUEST_METHOD]: method,
    [attr.ATTR_SERVER_ADDRESS]: target.hostname,
    [attr.ATTR_SERVER_PORT]: Number(target.port) || (target.protocol === "https:" ? 443 : 80),
    ...(withPath ? { [attr.ATTR_URL_FULL]: `${target.origin}${target.pathname}` } : {}),
  };
}

/**
 * fetch to a peer of ours (a provider, the cash register, payments' callback) inside a client span
 * with the response's status; the trace context goes along in `traceparent`. Plain fetch when off.
 */
export function tracedFetch(url: string, init: RequestInit): Promise<Response> {
  if (!tracer) return fetch(url, init);
  const method = init.method ?? "GET";
  return inClientSpan(
    method,
    () => httpClientAttributes(method, url, true),
    (inject) => {
      const headers = new Headers(init.headers);
      inject(headers);
      return fetch(url, { ...init, headers });
    },
    (res) => ({ outcome: res.status >= 400 ? String(res.status) : "ok", httpStatus: res.status, failed: res.status >= 400 }),
  );
}

/**
 * Runs `fn` outside any trace. For a background loop woken from a request (a relay's next pass
 * scheduled by a commit): its timer would otherwise carry that request's context into work that is
 * not the request's, and its log lines would name the request's trace.
 */
export function outsideTraces<T>(fn: () => T): T {
  return tracer ? api.context.with(api.ROOT_CONTEXT, fn) : fn();
}

/** Runs `fn` with the given context current when tracing is on (GroupCommit hands each write its caller's). */
export function bindToCurrent<F extends (...args: never[]) => unknown>(fn: F): F {
  return tracer ? api.context.bind(api.context.active(), fn) : fn;
}
