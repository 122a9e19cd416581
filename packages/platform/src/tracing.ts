import type * as OtelApi from "@opentelemetry/api";
import type { Attributes, Context, HrTime, Link, Span, SpanContext, SpanKind, TextMapGetter, TextMapSetter, Tracer } from "@opentelemetry/api";
import type * as Semconv from "@opentelemetry/semantic-conventions";
import type { TracingConfig } from "./config.ts";
import type { Sdk } from "./tracing-sdk.ts";

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
/** The SDK's part in edge spans of traces not sampled (set with `tracer`). */
let sdk!: Pick<Sdk, "tails" | "followsParent" | "slowMs" | "exportLate" | "resource">;

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
  const started = startSdk(service, cfg, url);
  ({ api, attr } = started);
  sdk = started;
  tracer = started.tracer;
  return { shutdown: started.shutdown };
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
  const span = tracer && api.trace.getActiveSpan();
  if (!span) return;
  if (span.isRecording()) span.setAttributes(attributes);
  else edges.get(span)?.added.push(attributes);
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
  const edge = span.isRecording() ? undefined : edges.get(span);
  if (edge) edge.added.push(attributes);
  else if (span.isRecording()) span.setAttributes(attributes);
  else return;
  const context = origin && api.trace.getSpanContext(api.propagation.extract(api.ROOT_CONTEXT, origin, recordGetter));
  if (!context || context.traceId === span.spanContext().traceId || linked.has(span)) return;
  if (edge) edge.links.push({ context });
  else span.addLink({ context });
  linked.add(span);
}

/**
 * Whether a span made in `parent` would record nothing: the sampler follows the parent's decision
 * and the parent's trace is not sampled (99 % of the traces at the default sampling). No such span
 * is made: the parent's context goes on as it is, its ids in the headers, for the price of the
 * headers alone.
 */
function unsampledUnder(parent: Context): boolean {
  if (!sdk.followsParent) return false;
  const context = api.trace.getSpanContext(parent);
  return context !== undefined && (context.traceFlags & api.TraceFlags.SAMPLED) === 0;
}

/** A stored context's `sampled` flag (the last field of its traceparent). */
const storedSampled = (stored: TraceCarrier) => (Number.parseInt(stored.traceparent.slice(-2), 16) & 1) === 1;

/** The span with its attributes when it records; one the sampler did not record gets none, and they are not even made. */
function recording(span: Span, attributes: () => Attributes): Span {
  if (span.isRecording()) span.setAttributes(attributes());
  return span;
}

/** What a span's end adds: its final name and the attributes known only then (an HTTP route and status); made only for a span exported. */
type SpanEnd = () => { name?: string; attributes?: Attributes };
const NOTHING_AT_END: SpanEnd = () => ({});

/**
 * Ends a span with its outcome: `ok`, or an error code (the transport's or the reply's) with the
 * reason; `failed` marks the span as an error (its status), which a trace viewer shows in red. A
 * span not recorded is an edge of a trace not sampled (exported when it failed or was slow) or
 * nothing at all.
 */
function finish(span: Span, outcome: string, reason: string | undefined, failed: boolean, end = NOTHING_AT_END): void {
  if (!span.isRecording()) return endEdge(span, outcome, reason, failed, end);
  const { name, attributes } = end();
  if (name !== undefined) span.updateName(name);
  if (attributes) span.setAttributes(attributes);
  span.setAttribute("payaccept.outcome", outcome);
  if (reason !== undefined) span.setAttribute(attr.ATTR_ERROR_TYPE, reason);
  if (failed) span.setStatus({ code: api.SpanStatusCode.ERROR, message: reason ?? outcome });
  span.end();
}

// ---- Edges of the traces not sampled ----------------------------------------------------------------

/**
 * An edge span (a server or consumer span: one per request or message a process handles) of a
 * trace the sampler did not keep, under a sampler that keeps such a trace's failed and slow edges
 * (docs/observability.md, "Sampling"). The SDK makes it a span that records nothing, whose ids go
 * on as any span's; this is all that is kept beside it, the attributes as a function made only if
 * the span is exported. When it ends failed or slower than TRACES_KEEP_SLOWER_THAN, endEdge makes
 * it up whole and exports it, marked sampled; otherwise nothing more is done. A recorded span
 * would cost every request of the traces not sampled several µs of the SDK's work (attributes
 * checked, times taken, a span object built and handed to the processors) for the few kept.
 */
type Edge = {
  name: string;
  kind: SpanKind;
  /** Epoch ms (performance.timeOrigin + performance.now()). */
  startedMs: number;
  parent: SpanContext | undefined;
  attributes: () => Attributes;
  /** What annotateSpan and linkTrace added while it ran. */
  added: Attributes[];
  links: Link[];
};
const edges = new WeakMap<Span, Edge>();
const nowMs = () => performance.timeOrigin + performance.now();
const hrTime = (ms: number): HrTime => [Math.trunc(ms / 1000), Math.round((ms % 1000) * 1e6)];

/** A server or consumer span, child of `parent`: recorded with its attributes when sampled, else an edge (or nothing). */
function startEdge(name: string, kind: SpanKind, parent: Context, attributes: () => Attributes, links: Link[] = []): Span {
  const span = tracer!.startSpan(name, { kind, links }, parent);
  if (span.isRecording()) span.setAttributes(attributes());
  else if (sdk.tails) edges.set(span, { name, kind, startedMs: nowMs(), parent: api.trace.getSpanContext(parent), attributes, added: [], links });
  return span;
}

/** An edge ends: exported, made up whole, only when it failed or was slow. */
function endEdge(span: Span, outcome: string, reason: string | undefined, failed: boolean, end: SpanEnd): void {
  const edge = edges.get(span);
  if (!edge) return;
  const endedMs = nowMs();
  if (!failed && endedMs - edge.startedMs < sdk.slowMs) return;
  const context = span.spanContext();
  const kept = { ...context, traceFlags: context.traceFlags | api.TraceFlags.SAMPLED };
  const { name, attributes } = end();
  sdk.exportLate({
    name: name ?? edge.name,
    kind: edge.kind,
    spanContext: () => kept,
    parentSpanContext: edge.parent,
    startTime: hrTime(edge.startedMs),
    endTime: hrTime(endedMs),
    duration: hrTime(endedMs - edge.startedMs),
    status: failed ? { code: api.SpanStatusCode.ERROR, message: reason ?? outcome } : { code: api.SpanStatusCode.UNSET },
    attributes: Object.assign(edge.attributes(), ...edge.added, attributes, {
      "payaccept.outcome": outcome,
      ...(reason === undefined ? {} : { [attr.ATTR_ERROR_TYPE]: reason }),
    }),
    links: edge.links,
    events: [],
    ended: true,
    resource: sdk.resource,
    instrumentationScope: { name: "payaccept" },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  });
}

// ---- NATS request/reply -------------------------------------------------------------------------

const natsAttributes = (subject: string): Attributes => ({ "messaging.system": "nats", "messaging.destination.name": subject, "rpc.system": "nats", "rpc.method": subject });

/**
 * The client span of one NATS call, child of the current span; its context goes into the request's
 * headers (every copy of a hedged call carries the same). undefined when off.
 */
export function startRpcClientSpan(subject: string, headers: HeaderBag): Span | undefined {
  if (!tracer) return undefined;
  const active = api.context.active();
  if (unsampledUnder(active)) {
    api.propagation.inject(active, headers, setter);
    return undefined;
  }
  const span = recording(tracer.startSpan(subject, { kind: api.SpanKind.CLIENT }, active), () => natsAttributes(subject));
  api.propagation.inject(api.trace.setSpan(active, span), headers, setter);
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
  const span = startEdge(subject, api.SpanKind.SERVER, parent, () => natsAttributes(subject));
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
  if (stored && sdk.followsParent && !storedSampled(stored)) {
    // A write of a trace not sampled: its context goes on as stored.
    headers.set("traceparent", stored.traceparent);
    if (stored.tracestate) headers.set("tracestate", stored.tracestate);
    return undefined;
  }
  // null: a stored write that kept no context (tracing was off, or no trace caused it) begins its own trace.
  const parent = stored ? api.propagation.extract(api.ROOT_CONTEXT, stored, recordGetter) : stored === null ? api.ROOT_CONTEXT : api.context.active();
  if (unsampledUnder(parent)) {
    api.propagation.inject(parent, headers, setter);
    return undefined;
  }
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
  const { subject, seq } = m;
  const deliveryCount = m.info.deliveryCount;
  const span = startEdge(`process ${subject}`, api.SpanKind.CONSUMER, parent, () => ({
    "messaging.system": "nats",
    "messaging.operation.type": "process",
    "messaging.destination.name": subject,
    "messaging.consumer.group.name": consumer,
    "messaging.nats.stream_sequence": seq,
    "messaging.nats.delivery_count": deliveryCount,
  }));
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
  const method = req.method;
  const span = startEdge(method, api.SpanKind.SERVER, parent, () => ({ [attr.ATTR_HTTP_REQUEST_METHOD]: method, "url.path": path }), links);
  try {
    const { route, status } = await api.context.with(api.trace.setSpan(parent, span), handle);
    const end = () => ({ name: `${method} ${route}`, attributes: { [attr.ATTR_HTTP_ROUTE]: route, [attr.ATTR_HTTP_RESPONSE_STATUS_CODE]: status } });
    finish(span, status >= 500 ? String(status) : "ok", undefined, status >= 500, end);
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
  const active = api.context.active();
  if (unsampledUnder(active)) return run((headers) => api.propagation.inject(active, headers, setter));
  const span = recording(tracer.startSpan(name, { kind: api.SpanKind.CLIENT }, active), attributes);
  const inContext = api.trace.setSpan(active, span);
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
