/** One span as an OTLP/HTTP JSON export carried it, with the service that sent it. */
export type ReceivedSpan = {
  service: string;
  traceId: string;
  spanId: string;
  /** "" for the root of a trace. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbers: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** 2 = error. */
  statusCode: number;
  links: { traceId: string; spanId: string }[];
};

export const SPAN_KIND = { server: 2, client: 3, producer: 4, consumer: 5 } as const;

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  status?: { code?: number };
  links?: { traceId: string; spanId: string }[];
};
type ExportRequest = { resourceSpans: { resource: { attributes: KeyValue[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] };

const valueOf = (v: AnyValue): string | number | boolean =>
  v.stringValue ?? v.boolValue ?? v.doubleValue ?? (v.intValue === undefined ? "" : Number(v.intValue));
const attributesOf = (kvs: KeyValue[] = []) => Object.fromEntries(kvs.map((kv) => [kv.key, valueOf(kv.value)]));

/**
 * A trace collector for tests: a real HTTP server on 127.0.0.1 taking OTLP/HTTP JSON exports at
 * /v1/traces (what the services send with OTEL_EXPORTER_OTLP_PROTOCOL=http/json), keeping every span.
 */
export function startOtlpReceiver(): { url: string; spans: ReceivedSpan[]; requests: () => number; stop: () => void } {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      requests++;
      if (new URL(req.url).pathname !== "/v1/traces" || req.headers.get("content-type") !== "application/json") return new Response("unsupported", { status: 415 });
      const body = (await req.json()) as ExportRequest;
      for (const rs of body.resourceSpans) {
        const service = String(attributesOf(rs.resource.attributes)["service.name"]);
        for (const ss of rs.scopeSpans) {
          for (const s of ss.spans) {
            spans.push({
              service,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? "",
              name: s.name,
              kind: s.kind,
              attributes: attributesOf(s.attributes),
              statusCode: s.status?.code ?? 0,
              links: s.links ?? [],
            });
          }
        }
      }
      return Response.json({});
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, spans, requests: () => requests, stop: () => void server.stop(true) };
}
