import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Payment } from "@payaccept/contracts";
import { SPAN_KIND, startOtlpReceiver } from "./harness/otlp-receiver.ts";
import { eventually, Stack, type ShopCreated } from "./harness/stack.ts";

/**
 * Tracing at the default sampling (docs/observability.md, "Sampling"): the traces not sampled
 * export nothing of a request that went well, and still export a span that failed or was slow;
 * spans leave as OTLP/HTTP protobuf. Every trace here is unsampled (a ratio of 0), so whatever
 * arrives was kept by its end. The store plays no part: SQLite only.
 */
setDefaultTimeout(120_000);

/** A span at least this long is kept; a request that goes well takes a small part of it. */
const SLOW_MS = 2000;

describe("tracing at the default sampling", () => {
  let stack: Stack;
  let otlp: ReturnType<typeof startOtlpReceiver>;
  let shop: ShopCreated;

  beforeAll(async () => {
    otlp = startOtlpReceiver();
    stack = await Stack.start({
      services: ["directory", "payments", "gateway"],
      // The default sampler and protocol, no trace sampled by its ratio, exports every 50 ms.
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_TRACES_SAMPLER_ARG: "0", TRACES_KEEP_SLOWER_THAN: `${SLOW_MS}ms`, OTEL_BSP_SCHEDULE_DELAY: "50", NATS_HEDGE_AFTER: "0" },
    });
    shop = await stack.createShop({ name: "Sampled shop", sandbox: true });
  });
  afterAll(async () => {
    await stack?.stop();
    otlp?.stop();
  });

  const create = () => stack.api(shop.apiKey, "/v1/payments", { method: "POST", json: { orderId: `sampled-${crypto.randomUUID()}`, amountKopecks: 10_000 } });
  /** A 503: the receipts service is not running, so the gateway's request finds no responder at once. */
  const failing = async () => {
    const p = Payment.parse(await (await create()).json());
    const res = await stack.api(shop.apiKey, `/v1/payments/${p.id}/receipts`);
    expect(res.status).toBe(503);
    return res.headers.get("x-request-id")!;
  };
  const traceIdOf = (requestId: string) => stack.logLines("gateway").find((l) => l.requestId === requestId && l.msg === "request")?.traceId as string;

  test("requests that went well export nothing; a failed one exports its failed span, as protobuf", async () => {
    for (let i = 0; i < 5; i++) expect((await create()).status).toBe(201);
    const requestId = await failing();
    const traceId = traceIdOf(requestId);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    // Spans are exported in the order they ended: the failed request's come after the others'.
    await eventually(() => otlp.spans.some((s) => s.traceId === traceId), 10_000);
    expect(otlp.spans.map((s) => `${s.service} ${s.name} ${s.traceId === traceId}`)).toEqual(["gateway GET /api/v1/payments/:id/receipts true"]);
    expect(otlp.spans[0]).toMatchObject({ kind: SPAN_KIND.server, statusCode: 2, attributes: { "http.response.status_code": 503 } });
    expect(otlp.protobufRequests()).toBeGreaterThan(0);
    expect(otlp.requests()).toBe(otlp.protobufRequests());
  });

  test("a slow request exports its slow spans: the gateway's, and not payments' quick answer", async () => {
    const before = otlp.spans.length;
    void stack.service("payments").kill("SIGSTOP");
    let res: Promise<Response>;
    try {
      res = create();
      await Bun.sleep(SLOW_MS + 300);
    } finally {
      void stack.service("payments").kill("SIGCONT");
    }
    const answered = await res!;
    expect(answered.status).toBe(201);
    const traceId = traceIdOf(answered.headers.get("x-request-id")!);
    await eventually(() => otlp.spans.some((s) => s.traceId === traceId), 10_000);
    const kept = otlp.spans.slice(before).filter((s) => s.traceId === traceId);
    expect(kept.map((s) => `${s.service} ${s.name}`)).toEqual(["gateway POST /api/v1/payments"]);
    expect(kept[0]!.statusCode).not.toBe(2);
  });
});
