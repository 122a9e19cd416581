import { rpcs, type WebhookDelivery } from "@payaccept/contracts";
import { call } from "@payaccept/platform";
import { requireFlag, requireShaped, UsageError, type Command } from "../cli.ts";
import { knownShop } from "./known.ts";

/** The test webhook waits for the merchant's reply (WEBHOOK_TIMEOUT_MS, at most 30 s) before answering. */
const TEST_WEBHOOK_TIMEOUT_MS = 35_000;

function describeDelivery(d: WebhookDelivery): string {
  const next = d.nextAttemptAt ? `, next attempt ${d.nextAttemptAt}` : "";
  const error = d.lastError ? `, last error: ${d.lastError}` : "";
  return `${d.id}  ${d.createdAt}  payment ${d.paymentId} (${d.orderId}) ${d.status}: ${d.result} after ${d.attemptCount} attempt(s)${next}${error}`;
}

export const webhookCommands: Record<string, Command> = {
  "webhooks:log": {
    usage: "--shop ID [--payment ID] [--limit N] [--json]",
    flags: { shop: "string", payment: "string", limit: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const limit = flags.limit === undefined ? undefined : Number(flags.limit);
      if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 200)) throw new UsageError("--limit must be 1..200");
      const shopId = await knownShop(nc, flags, timeoutMs);
      const paymentId = typeof flags.payment === "string" ? flags.payment : undefined;
      const { items } = await call(nc, rpcs.webhooks.log, { shopId, paymentId, limit }, timeoutMs);
      print(flags.json ? items : items.map(describeDelivery).join("\n") || "no deliveries");
    },
  },
  "webhooks:resend": {
    usage: "--shop ID --delivery ID [--json]",
    flags: { shop: "string", delivery: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const req = { shopId: requireFlag(flags, "shop"), deliveryId: requireFlag(flags, "delivery") };
      const delivery = await call(nc, rpcs.webhooks.resend, req, timeoutMs);
      print(flags.json ? delivery : `resend scheduled: ${describeDelivery(delivery)}`);
    },
  },
  "webhooks:test": {
    usage: "--shop ID [--json]",
    flags: { shop: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const result = await call(nc, rpcs.webhooks.test, { shopId: requireFlag(flags, "shop") }, Math.max(timeoutMs, TEST_WEBHOOK_TIMEOUT_MS));
      const outcome = result.httpStatus === null ? `no HTTP reply: ${result.error}` : `HTTP ${result.httpStatus}`;
      print(flags.json ? result : `test webhook ${result.id}: ${outcome} in ${result.durationMs} ms`);
    },
  },
  "webhooks:replay": {
    usage: "--shop ID --since ISO_TIME [--json]",
    flags: { shop: "string", since: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const since = requireShaped(flags, "since", "time");
      const req = { shopId: await knownShop(nc, flags, timeoutMs), since };
      const result = await call(nc, rpcs.webhooks.replay, req, timeoutMs);
      print(flags.json ? result : `${result.requeued} webhook(s) requeued`);
    },
  },
};
