import { afterAll, beforeAll, expect } from "bun:test";
import type { WebhookDelivery } from "@payaccept/contracts";
import type { Engine } from "../../../tests/harness/engines.ts";
import { eventually, Stack, STACK_START_MS } from "../../../tests/harness/stack.ts";
import { deliveryOf } from "./fixtures.ts";
import { startReceiver, type Receiver } from "./receiver.ts";

/**
 * A real stack running only the webhook-dispatcher for the file's (or describe's) tests, and
 * receivers that are stopped with it. On "postgres" the dispatcher's store is the stack's
 * throwaway PostgreSQL (WEBHOOKS_DATABASE_URL).
 */
export function useDispatcherStack(env: Record<string, string>, engine: Engine = "sqlite") {
  let stack: Stack | undefined;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    stack = await Stack.start({ services: ["webhook-dispatcher"], env, postgres: engine === "postgres" });
  }, STACK_START_MS);
  afterAll(async () => {
    for (const r of receivers) r.stop();
    await stack?.stop();
  });
  return {
    get stack(): Stack {
      if (!stack) throw new Error("the stack is not started yet");
      return stack;
    },
    receiver(respond?: Parameters<typeof startReceiver>[0]): Receiver {
      const r = startReceiver(respond);
      receivers.push(r);
      return r;
    },
  };
}

export const retryDelaysEnv = (delaysMs: readonly number[]) => delaysMs.map((d) => `${d}ms`).join(",");

/** Waits until the delivery of the payment satisfies `done` (by default: no longer pending). */
export function awaitDelivery(
  stack: Stack,
  shopId: string,
  paymentId: string,
  done: (d: WebhookDelivery) => boolean = (d) => d.result !== "pending",
): Promise<WebhookDelivery> {
  return eventually(async () => {
    const d = await deliveryOf(stack, shopId, paymentId);
    return d && done(d) ? d : undefined;
  }, 60_000);
}

/** Each attempt of the series starts no earlier than the previous one ended plus the schedule's pause. */
export function expectScheduleSpacing(d: WebhookDelivery, retryDelaysMs: readonly number[], series = 1): void {
  const attempts = d.attempts.filter((a) => a.series === series);
  expect(attempts.map((a) => a.attempt)).toEqual(attempts.map((_, i) => i + 1));
  for (let i = 1; i < attempts.length; i++) {
    const previous = attempts[i - 1]!;
    const earliest = Date.parse(previous.at) + previous.durationMs + retryDelaysMs[i - 1]!;
    expect(Date.parse(attempts[i]!.at)).toBeGreaterThanOrEqual(earliest);
  }
}
