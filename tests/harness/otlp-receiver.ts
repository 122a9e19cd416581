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
 * The protobuf wire format's fields of one message (opentelemetry-proto's public .proto files give
 * the numbers): varints as bigint, length-delimited as bytes, fixed32/64 as bigint.
 */
function fields(buf: Uint8Array): [number, bigint | Uint8Array][] {
  const out: [number, bigint | Uint8Array][] = [];
  let i = 0;
  const varint = () => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[i++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
  };
  const fixed = (n: number) => {
    let v = 0n;
    for (let k = n - 1; k >= 0; k--) v = (v << 8n) | BigInt(buf[i + k]!);
    i += n;
    return v;
  };
  while (i < buf.length) {
    const tag = Number(varint());
    const [field, wire] = [tag >> 3, tag & 7];
    if (wire === 0) out.push([field, varint()]);
    else if (wire === 1) out.push([field, fixed(8)]);
    else if (wire === 5) out.push([field, fixed(4)]);
    else if (wire === 2) {
      const n = Number(varint());
      out.push([field, buf.subarray(i, (i += n))]);
    } else throw new Error(`protobuf wire type ${wire} not read here`);
  }
  return out;
}
const bytesOf = (f: [number, bigint | Uint8Array][], n: number) => f.filter(([k]) => k === n).map(([, v]) => v as Uint8Array);
const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString("hex") : "");
const text = (b: Uint8Array | undefined) => (b ? new TextDecoder().decode(b) : "");
const numberOf = (f: [number, bigint | Uint8Array][], n: number) => Number((f.find(([k]) => k === n)?.[1] as bigint | undefined) ?? 0n);

/** KeyValue { key = 1; AnyValue value = 2 { string 1, bool 2, int 3, double 4 } }. */
function keyValuesPb(kvs: Uint8Array[]): KeyValue[] {
  return kvs.map((kv) => {
    const f = fields(kv);
    const v = fields(bytesOf(f, 2)[0] ?? new Uint8Array());
    const [field, raw] = v[0] ?? [0, 0n];
    const value: AnyValue =
      field === 1 ? { stringValue: text(raw as Uint8Array) } : field === 2 ? { boolValue: raw === 1n } : field === 3 ? { intValue: Number(BigInt.asIntN(64, raw as bigint)) } : field === 4 ? { doubleValue: new Float64Array(new BigUint64Array([raw as bigint]).buffer)[0] } : {};
    return { key: text(bytesOf(f, 1)[0]), value };
  });
}

/** ExportTraceServiceRequest (protobuf) in the shape of its JSON mapping. */
function decodeProtobufExport(buf: Uint8Array): ExportRequest {
  return {
    resourceSpans: bytesOf(fields(buf), 1).map((rsBytes) => {
      const rs = fields(rsBytes);
      return {
        resource: { attributes: keyValuesPb(bytesOf(fields(bytesOf(rs, 1)[0] ?? new Uint8Array()), 1)) },
        scopeSpans: bytesOf(rs, 2).map((ssBytes) => ({
          spans: bytesOf(fields(ssBytes), 2).map((spanBytes) => {
            const sp = fields(spanBytes);
            const status = fields(bytesOf(sp, 15)[0] ?? new Uint8Array());
            return {
              traceId: hex(bytesOf(sp, 1)[0]),
              spanId: hex(bytesOf(sp, 2)[0]),
              parentSpanId: hex(bytesOf(sp, 4)[0]),
              name: text(bytesOf(sp, 5)[0]),
              kind: numberOf(sp, 6),
              attributes: keyValuesPb(bytesOf(sp, 9)),
              status: { code: numberOf(status, 3) },
              links: bytesOf(sp, 13).map((l) => {
                const lf = fields(l);
                return { traceId: hex(bytesOf(lf, 1)[0]), spanId: hex(bytesOf(lf, 2)[0]) };
              }),
            };
          }),
        })),
      };
    }),
  };
}

/**
 * A trace collector for tests: a real HTTP server on 127.0.0.1 taking OTLP/HTTP exports at
 * /v1/traces, protobuf (the services' default) or JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json),
 * keeping every span and how many requests came in each encoding.
 */
export function startOtlpReceiver(): { url: string; spans: ReceivedSpan[]; requests: () => number; protobufRequests: () => number; stop: () => void } {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  let protobufRequests = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      requests++;
      const type = req.headers.get("content-type");
      if (new URL(req.url).pathname !== "/v1/traces" || (type !== "application/json" && type !== "application/x-protobuf")) return new Response("unsupported", { status: 415 });
      if (type === "application/x-protobuf") protobufRequests++;
      const body = type === "application/json" ? ((await req.json()) as ExportRequest) : decodeProtobufExport(new Uint8Array(await req.arrayBuffer()));
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
      // An empty ExportTraceServiceResponse in the request's own encoding.
      return type === "application/json" ? Response.json({}) : new Response(new Uint8Array(), { headers: { "Content-Type": "application/x-protobuf" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, spans, requests: () => requests, protobufRequests: () => protobufRequests, stop: () => void server.stop(true) };
}
