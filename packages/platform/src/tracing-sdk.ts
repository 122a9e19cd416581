import * as api from "@opentelemetry/api";
import type { Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter as OtlpJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import type { Resource } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type ReadableSpan,
  type Sampler,
} from "@opentelemetry/sdk-trace";
import * as attr from "@opentelemetry/semantic-conventions";
import type { TracingConfig } from "./config.ts";

const SAMPLERS: Record<TracingConfig["OTEL_TRACES_SAMPLER"], (ratio: number) => Sampler> = {
  always_on: () => new AlwaysOnSampler(),
  always_off: () => new AlwaysOffSampler(),
  traceidratio: (ratio) => new TraceIdRatioBasedSampler(ratio),
  parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
  parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
  parentbased_traceidratio: (ratio) => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
};

/** The samplers whose traces not sampled keep their failed and slow edge spans (tracing.ts, "edges"). */
const WITH_TAILS = new Set<TracingConfig["OTEL_TRACES_SAMPLER"]>(["traceidratio", "parentbased_traceidratio"]);

/** What tracing.ts gets from the SDK: the tracer, the API and attribute names it loads only through here, and how to export an edge span late. */
export type Sdk = {
  tracer: Tracer;
  shutdown: () => Promise<void>;
  api: typeof api;
  attr: typeof attr;
  /** Whether a trace not sampled keeps its failed and slow edge spans (the ratio samplers). */
  tails: boolean;
  /** Whether a span follows its parent's decision (parentbased_*): no child of a span not sampled is recorded. */
  followsParent: boolean;
  /** The spans of traces not sampled slower than this are kept (TRACES_KEEP_SLOWER_THAN). */
  slowMs: number;
  /** Exports a span tracing.ts made up when an edge of a trace not sampled ended failed or slow (marked sampled). */
  exportLate: (span: ReadableSpan) => void;
  resource: Resource;
};

/**
 * The OpenTelemetry SDK for a process that exports traces: the service's resource (service.name,
 * namespace payaccept, one instance id per process, OTEL_RESOURCE_ATTRIBUTES), the sampler, a
 * bounded batching exporter over OTLP/HTTP (protobuf unless told JSON), which also takes the
 * failed and slow edge spans of the traces not sampled (exportLate), W3C trace context propagation
 * and AsyncLocalStorage as the context manager, so that a span stays current across the awaits of
 * the work it covers.
 */
export function startSdk(service: string, cfg: TracingConfig, url: string): Sdk {
  const protocol = cfg.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? cfg.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/protobuf";
  const exporter = protocol === "http/protobuf" ? new OtlpProtobufExporter({ url }) : new OtlpJsonExporter({ url });
  const resource = resourceFromAttributes({
    [attr.ATTR_SERVICE_NAME]: service,
    "service.namespace": "payaccept",
    "service.instance.id": Bun.randomUUIDv7(),
  }).merge(detectResources({ detectors: [envDetector] }));
  const batch = new BatchSpanProcessor({
    exporter,
    scheduledDelayMillis: cfg.OTEL_BSP_SCHEDULE_DELAY,
    maxQueueSize: cfg.OTEL_BSP_MAX_QUEUE_SIZE,
    maxExportBatchSize: Math.min(cfg.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, cfg.OTEL_BSP_MAX_QUEUE_SIZE),
  });
  const provider = new TracerProvider({ resource, sampler: SAMPLERS[cfg.OTEL_TRACES_SAMPLER](cfg.OTEL_TRACES_SAMPLER_ARG), spanProcessors: [batch] });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  return {
    tracer: api.trace.getTracer("payaccept"),
    shutdown: () => provider.shutdown(),
    api,
    attr,
    tails: WITH_TAILS.has(cfg.OTEL_TRACES_SAMPLER),
    followsParent: cfg.OTEL_TRACES_SAMPLER.startsWith("parentbased_"),
    slowMs: cfg.TRACES_KEEP_SLOWER_THAN,
    exportLate: (span) => batch.onEnd(span),
    resource,
  };
}
