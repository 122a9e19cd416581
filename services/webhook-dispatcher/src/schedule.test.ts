import { describe, expect, test } from "bun:test";
import { failure, WEBHOOK_RETRY_JITTER as RETRY_JITTER } from "@payaccept/contracts";
import { nextStep } from "./schedule.ts";

const DELAYS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 86_400_000];
const http500 = failure("WEBHOOK_HTTP_STATUS", { httpStatus: 500 });
const failed = { kind: "failed", httpStatus: 500, error: http500, durationMs: 12 } as const;

describe("nextStep", () => {
  test("failures follow the schedule 1m, 5m, 30m, 2h, 6h, 24h; the 7th ends the series as exhausted", () => {
    const steps = [1, 2, 3, 4, 5, 6, 7].map((n) => nextStep(failed, n, DELAYS, () => 0));
    expect(steps.map((s) => s.retryInMs)).toEqual([...DELAYS, null]);
    expect(steps.map((s) => s.result)).toEqual(["pending", "pending", "pending", "pending", "pending", "pending", "exhausted"]);
    expect(steps.every((s) => s.lastError === http500)).toBe(true);
  });

  test("each pause is the spec's or up to 10 % later at random, never earlier", () => {
    expect(RETRY_JITTER).toBe(0.1);
    expect(nextStep(failed, 1, DELAYS, () => 1 - Number.EPSILON).retryInMs).toBe(65_999);
    for (let i = 0; i < 200; i++) {
      const n = 1 + (i % 6);
      const pause = nextStep(failed, n, DELAYS).retryInMs!;
      expect(pause).toBeGreaterThanOrEqual(DELAYS[n - 1]!);
      expect(pause).toBeLessThan(DELAYS[n - 1]! * 1.1);
    }
  });

  test("a 2xx delivers at any attempt and clears the error", () => {
    expect(nextStep({ kind: "delivered", httpStatus: 204, durationMs: 3 }, 4, DELAYS)).toEqual({ result: "delivered", retryInMs: null, lastError: null });
  });

  test("a blocked address ends the series: retrying cannot help until the URL changes", () => {
    const blocked = failure("WEBHOOK_ADDRESS_BLOCKED", { host: "10.0.0.1" });
    expect(nextStep({ kind: "blocked", error: blocked, durationMs: 0 }, 1, DELAYS)).toEqual({ result: "blocked", retryInMs: null, lastError: blocked });
  });

  test("an empty schedule means a single attempt", () => {
    expect(nextStep(failed, 1, []).result).toBe("exhausted");
  });
});
