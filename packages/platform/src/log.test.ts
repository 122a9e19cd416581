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
