import { expect, test } from "bun:test";
import { commonEnv, ConfigError, parseConfig } from "./config.ts";
import { currentTraceIds, traceCarrier, tracedFetch, tracesUrl, tracingOn } from "./tracing.ts";

// Tracing is never started in this process (bun runs many test files in one): the tracing-on
// behaviour is tested across real processes in tests/tracing.test.ts.

const tracing = (env: Record<string, string>) =>
  parseConfig(
    Object.fromEntries(Object.entries(commonEnv).filter(([k]) => /^(OTEL|TRACES)_/.test(k))) as Pick<typeof commonEnv, Extract<keyof typeof commonEnv, `OTEL_${string}` | `TRACES_${string}`>>,
    env,
  );

test("tracing is on only with an endpoint: the OTLP endpoint gets /v1/traces, the traces endpoint is taken as given", () => {
  expect(tracesUrl(tracing({}))).toBeUndefined();
  expect(tracesUrl(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: "" }))).toBeUndefined();
  expect(tracesUrl(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://jaeger:4318/" }))).toBe("http://jaeger:4318/v1/traces");
  expect(tracesUrl(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://jaeger:4318", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/custom" }))).toBe(
    "http://collector:4318/custom",
  );
  expect(tracesUrl(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://jaeger:4318", OTEL_SDK_DISABLED: "true" }))).toBeUndefined();
});

test("the defaults: 1 % of the traces kept whole where they begin, the others' failed and slow (≥ 1 s) spans; bounded batches within 5 s", () => {
  expect(tracing({})).toMatchObject({
    OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
    OTEL_TRACES_SAMPLER_ARG: 0.01,
    TRACES_KEEP_SLOWER_THAN: 1000,
    OTEL_BSP_SCHEDULE_DELAY: 5000,
    OTEL_BSP_MAX_QUEUE_SIZE: 2048,
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: 512,
    OTEL_SDK_DISABLED: false,
  });
  // Compose's `${X:-}` hands an empty string: the default, as if unset.
  expect(tracing({ OTEL_TRACES_SAMPLER: "", OTEL_TRACES_SAMPLER_ARG: "" })).toMatchObject({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: 0.01 });
});

test("a variable that cannot work stops the start with its name", () => {
  expect(() => tracing({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(ConfigError);
  expect(() => tracing({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL: only OTLP over HTTP/);
  expect(() => tracing({ OTEL_TRACES_SAMPLER: "sometimes" })).toThrow(/OTEL_TRACES_SAMPLER/);
  expect(() => tracing({ OTEL_TRACES_SAMPLER_ARG: "1.5" })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  expect(() => tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: "jaeger:4318" })).toThrow(/OTEL_EXPORTER_OTLP_ENDPOINT/);
});

test("off, nothing is made: no context to store, no ids for the log, and an HTTP call goes out without traceparent", async () => {
  expect(tracingOn()).toBe(false);
  expect(traceCarrier()).toBeUndefined();
  expect(currentTraceIds()).toBeUndefined();
  const seen: (string | null)[] = [];
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => (seen.push(req.headers.get("traceparent")), new Response("ok")) });
  try {
    expect((await tracedFetch(`http://127.0.0.1:${server.port}/x`, { method: "POST", body: "{}" })).status).toBe(200);
  } finally {
    server.stop(true);
  }
  expect(seen).toEqual([null]);
});
