import { expect, test } from "bun:test";
import { untilItWorks } from "./jetstream.ts";
import { createLogger } from "./log.ts";

function capturedLog() {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: createLogger("jetstream-test", "info", { write: (s: string) => void lines.push(JSON.parse(s)) }) };
}

test("untilItWorks: a start-time call that fails is tried again, each failed try a warning naming the call, and its result returned", async () => {
  const { lines, log } = capturedLog();
  let tries = 0;
  const result = await untilItWorks(
    "durable receipts of PAYMENTS",
    async () => {
      tries++;
      if (tries < 3) throw new Error(`no answer ${tries}`);
      return "bound";
    },
    log,
  );
  expect(result).toBe("bound");
  expect(tries).toBe(3);
  expect(lines.map((l) => [l.level, l.call, l.failures, l.err])).toEqual([
    [40, "durable receipts of PAYMENTS", 1, "no answer 1"],
    [40, "durable receipts of PAYMENTS", 2, "no answer 2"],
  ]);
  expect(lines.every((l) => l.msg === "JetStream call at start failed; trying again" && typeof l.retryInMs === "number")).toBe(true);
});

test("untilItWorks: a call that works at once is made once and logs nothing", async () => {
  const { lines, log } = capturedLog();
  let tries = 0;
  expect(await untilItWorks("KV bucket directory", async () => ++tries, log)).toBe(1);
  expect(lines).toEqual([]);
});
