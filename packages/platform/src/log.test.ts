import { expect, test } from "bun:test";
import { createLogger, redactSecrets } from "./log.ts";

function captured(): { lines: Record<string, unknown>[]; stream: { write: (s: string) => void } } {
  const lines: Record<string, unknown>[] = [];
  return { lines, stream: { write: (s: string) => void lines.push(JSON.parse(s)) } };
}

test("secrets and card data are replaced at the top level and in nested objects", () => {
  const { lines, stream } = captured();
  const log = createLogger("test", "info", stream);
  log.info(
    {
      apiKey: "sk_live_secret",
      shop: { signingSecret: "whsec_1", name: "Shop" },
      request: { headers: { "x-api-key": "sk_test_2", accept: "*/*" } },
      card: { pan: "4111111111111111" },
      user: { password: "hunter2", email: "a@b.c" },
      amountKopecks: 100,
    },
    "request",
  );
  const line = lines[0]!;
  expect(line).toMatchObject({
    service: "test",
    msg: "request",
    apiKey: "[redacted]",
    shop: { signingSecret: "[redacted]", name: "Shop" },
    request: { headers: { "x-api-key": "[redacted]", accept: "*/*" } },
    card: "[redacted]",
    user: { password: "[redacted]", email: "a@b.c" },
    amountKopecks: 100,
  });
  expect(JSON.stringify(line)).not.toMatch(/sk_live_secret|whsec_1|sk_test_2|4111111111111111|hunter2/);
});

test("the logged object is never changed, and one without secrets is passed on as it is", () => {
  const plain = { paymentId: "p1", nested: { status: "SUCCESS" } };
  expect(redactSecrets(plain)).toBe(plain);
  const withSecret = { user: { password: "x" } };
  const redacted = redactSecrets(withSecret);
  expect(redacted).toEqual({ user: { password: "[redacted]" } });
  expect(withSecret.user.password).toBe("x");
});

test("errors keep pino's serialization", () => {
  const { lines, stream } = captured();
  createLogger("test", "info", stream).error({ err: new Error("boom") }, "failed");
  expect(lines[0]).toMatchObject({ err: { type: "Error", message: "boom" }, msg: "failed" });
});

test("with tracing on, every line carries only its own fields: none of an earlier line's, outside a span or in one", () => {
  // Tracing is started once per process and stays on, so it runs in a process of its own.
  const script = `
    import { createLogger } from "./log.ts";
    import { inHttpServerSpan, startTracing } from "./tracing.ts";
    startTracing("test", { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9", OTEL_TRACES_SAMPLER: "parentbased_always_on", OTEL_TRACES_SAMPLER_ARG: 1, TRACES_KEEP_SLOWER_THAN: 1000, OTEL_BSP_SCHEDULE_DELAY: 60000, OTEL_BSP_MAX_QUEUE_SIZE: 2048, OTEL_BSP_MAX_EXPORT_BATCH_SIZE: 512, OTEL_SDK_DISABLED: false });
    const log = createLogger("test", "info");
    log.info({ requestId: "probe-1", path: "/readyz", status: 503 }, "request");
    log.info({ receiptId: "r-1" }, "receipt registered");
    await inHttpServerSpan(new Request("http://127.0.0.1/x"), "/x", "continue", async () => {
      log.info({ requestId: "req-2" }, "inside");
      return { route: "/x", status: 200 };
    });
    log.info({}, "service ready");
    process.exit(0);
  `;
  const run = Bun.spawnSync([process.execPath, "-e", script], { cwd: import.meta.dir, stdout: "pipe", stderr: "pipe", env: { ...process.env, LOG_LEVEL: "info" } });
  expect(run.stderr.toString()).toBe("");
  const lines = run.stdout.toString().trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  const own = (msg: string) => {
    const { level, time, pid, hostname, service, msg: _, ...fields } = lines.find((l) => l.msg === msg)!;
    return fields;
  };
  expect(own("request")).toEqual({ requestId: "probe-1", path: "/readyz", status: 503 });
  expect(own("receipt registered")).toEqual({ receiptId: "r-1" });
  const inside = own("inside");
  expect(inside.requestId).toBe("req-2");
  expect(inside.traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(inside.spanId).toMatch(/^[0-9a-f]{16}$/);
  expect(Object.keys(inside).sort()).toEqual(["requestId", "spanId", "traceId"]);
  expect(own("service ready")).toEqual({});
});
