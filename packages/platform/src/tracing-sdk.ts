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
  TraceIdRatioBasedSampler,
  TracerProvider,
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

/**
 * The OpenTelemetry SDK for a process that exports traces: the service's resource (service.name,
 * namespace payaccept, one instance id per process, OTEL_RESOURCE_ATTRIBUTES), the sampler, a
 * batching exporter over OTLP/HTTP, W3C trace context propagation and AsyncLocalStorage as the
 * context manager, so that a span stays current across the awaits of the work it covers. With the
 * tracer come the API and the attribute names, which tracing.ts loads only through here.
 */
export function startSdk(service: string, cfg: TracingConfig, url: string): { tracer: Tracer; shutdown: () => Promise<void>; api: typeof api; attr: typeof attr } {
  const protocol = cfg.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? cfg.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/json";
  const exporter = protocol === "http/protobuf" ? new OtlpProtobufExporter({ url }) : new OtlpJsonExporter({ url });
  const resource = resourceFromAttributes({
    [attr.ATTR_SERVICE_NAME]: service,
    "service.namespace": "payaccept",
    "service.instance.id": Bun.randomUUIDv7(),
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: SAMPLERS[cfg.OTEL_TRACES_SAMPLER](cfg.OTEL_TRACES_SAMPLER_ARG ?? 1),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: cfg.OTEL_BSP_SCHEDULE_DELAY })],
  });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  return { tracer: api.trace.getTracer("payaccept"), shutdown: () => provider.shutdown(), api, attr };
}
