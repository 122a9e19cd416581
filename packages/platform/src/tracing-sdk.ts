import * as api from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter as OtlpJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type ReadableSpan,
  type Sampler,
  type SamplingResult,
  type Span,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace";
import * as attr from "@opentelemetry/semantic-conventions";
import type { TracingConfig } from "./config.ts";

/**
 * The spans of a trace that is not sampled: its server and consumer spans (one per request or
 * message a process handles) are recorded, not exported, so that one that failed or was slow can
 * still be kept when it ends (KeepFailedAndSlow); the rest are not made at all.
 */
const edgesOnly = (kind: api.SpanKind): SamplingResult => ({
  decision: kind === api.SpanKind.SERVER || kind === api.SpanKind.CONSUMER ? SamplingDecision.RECORD : SamplingDecision.NOT_RECORD,
});
const recordEdges: Sampler = { shouldSample: (_context, _traceId, _name, kind) => edgesOnly(kind), toString: () => "RecordEdges" };

/** traceidratio whose unsampled traces keep their edges recorded (recordEdges). */
function ratioOrEdges(ratio: number): Sampler {
  const ratioSampler = new TraceIdRatioBasedSampler(ratio);
  return {
    shouldSample: (context, traceId, _name, kind) => {
      const kept = ratioSampler.shouldSample(context, traceId);
      return kept.decision === SamplingDecision.RECORD_AND_SAMPLED ? kept : edgesOnly(kind);
    },
    toString: () => `RatioOrEdges{${ratio}}`,
  };
}

const SAMPLERS: Record<TracingConfig["OTEL_TRACES_SAMPLER"], (ratio: number) => Sampler> = {
  always_on: () => new AlwaysOnSampler(),
  always_off: () => new AlwaysOffSampler(),
  traceidratio: (ratio) => ratioOrEdges(ratio),
  parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
  parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
  parentbased_traceidratio: (ratio) =>
    new ParentBasedSampler({ root: ratioOrEdges(ratio), remoteParentNotSampled: recordEdges, localParentNotSampled: recordEdges }),
};

/**
 * The batch processor, plus the tail of the ratio samplers' decision (what the SDK allows: a span
 * is judged when it ends, alone): a span of a trace not sampled is exported all the same when it
 * failed (status ERROR) or lasted at least `slowMs`, marked sampled for the export. Its parents in
 * other processes are exported only if they too failed or were slow: a failing request leaves its
 * failed spans, not its whole trace.
 */
class KeepFailedAndSlow implements SpanProcessor {
  constructor(
    private readonly batch: BatchSpanProcessor,
    private readonly slowMs: number,
  ) {}

  onStart(span: Span, context: api.Context): void {
    this.batch.onStart(span, context);
  }

  onEnd(span: ReadableSpan): void {
    const context = span.spanContext();
    if (context.traceFlags & api.TraceFlags.SAMPLED) return this.batch.onEnd(span);
    const [seconds, nanos] = span.duration;
    if (span.status.code !== api.SpanStatusCode.ERROR && seconds * 1000 + nanos / 1e6 < this.slowMs) return;
    const sampled = { ...context, traceFlags: context.traceFlags | api.TraceFlags.SAMPLED };
    this.batch.onEnd(Object.create(span, { spanContext: { value: () => sampled } }) as ReadableSpan);
  }

  forceFlush(): Promise<void> {
    return this.batch.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.batch.shutdown();
  }
}

/**
 * The OpenTelemetry SDK for a process that exports traces: the service's resource (service.name,
 * namespace payaccept, one instance id per process, OTEL_RESOURCE_ATTRIBUTES), the sampler, a
 * bounded batching exporter over OTLP/HTTP (protobuf unless told JSON) that also keeps the failed and
 * slow spans of the traces not sampled, W3C trace context propagation and AsyncLocalStorage as the
 * context manager, so that a span stays current across the awaits of the work it covers. With the
 * tracer come the API and the attribute names, which tracing.ts loads only through here.
 */
export function startSdk(service: string, cfg: TracingConfig, url: string): { tracer: Tracer; shutdown: () => Promise<void>; api: typeof api; attr: typeof attr } {
  const protocol = cfg.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? cfg.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf";
  const exporter = protocol === "http/protobuf" ? new OtlpProtobufExporter({ url }) : new OtlpJsonExporter({ url });
  const resource = resourceFromAttributes({
    [attr.ATTR_SERVICE_NAME]: service,
    "service.namespace": "payaccept",
    "service.instance.id": Bun.randomUUIDv7(),
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: SAMPLERS[cfg.OTEL_TRACES_SAMPLER](cfg.OTEL_TRACES_SAMPLER_ARG),
    spanProcessors: [
      new KeepFailedAndSlow(
        new BatchSpanProcessor({
          exporter,
          scheduledDelayMillis: cfg.OTEL_BSP_SCHEDULE_DELAY,
          maxQueueSize: cfg.OTEL_BSP_MAX_QUEUE_SIZE,
          maxExportBatchSize: Math.min(cfg.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, cfg.OTEL_BSP_MAX_QUEUE_SIZE),
        }),
        cfg.TRACES_KEEP_SLOWER_THAN,
      ),
    ],
  });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  return { tracer: api.trace.getTracer("payaccept"), shutdown: () => provider.shutdown(), api, attr };
}
