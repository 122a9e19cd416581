import { ConnectorId, MAX_CONNECTORS_PER_METHOD, PAYMENT_METHODS, rpcs, type PaymentMethod, type ShopConnectors } from "@payaccept/contracts";
import { call, parseDuration } from "@payaccept/platform";
import { requireFlag, UsageError, type Command, type Flags } from "../cli.ts";
import { knownShop } from "./known.ts";
import { positiveIntFlag } from "./money.ts";
import { optional } from "./shops.ts";

/** --card / --sbp: "tbank,emulator" → the list tried in that order; "" → the deployment's default again; absent → unchanged. */
function listFlag(flags: Flags, name: string): ConnectorId[] | null | undefined {
  const raw = optional(flags, name);
  if (raw === undefined) return undefined;
  if (raw.trim() === "") return null;
  const ids = raw.split(",").map((s) => s.trim().toLowerCase());
  const parsed = ConnectorId.array().max(MAX_CONNECTORS_PER_METHOD).safeParse(ids);
  if (!parsed.success || new Set(ids).size !== ids.length) {
    throw new UsageError(`--${name} must list up to ${MAX_CONNECTORS_PER_METHOD} of ${ConnectorId.options.join(", ")}, each once, comma-separated ("" for the default)`);
  }
  return parsed.data;
}

/**
 * Operators choose a live shop's acquirers (docs/connectors.md, "Choosing a shop's connectors"):
 * per method, in the order they are tried; the method not named keeps its list.
 */
export const connectorCommands: Record<string, Command> = {
  reconcile: {
    usage:
      "[--older-than 10m] [--limit 200] [--shop ID] [--json]  (looks up at their acquirers the payments and refunds pending that long; applies what the acquirer decided, lists the rest)",
    flags: { "older-than": "string", limit: "string", shop: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const raw = optional(flags, "older-than");
      const olderThanMs = raw === undefined ? undefined : parseDuration(raw);
      if (olderThanMs === null) throw new UsageError("--older-than must be a duration such as 10m, 2h or 0s");
      const limit = optional(flags, "limit") === undefined ? undefined : positiveIntFlag(flags, "limit");
      const shopId = optional(flags, "shop") === undefined ? undefined : await knownShop(nc, flags, timeoutMs);
      print(await call(nc, rpcs.payments.reconcile, { olderThanMs, limit, shopId }, Math.max(timeoutMs, 60_000)));
    },
  },
  "connectors:health": {
    usage: "[--json]  (each connector as a payments process sees it: configured, the default, its circuit, its calls, successes and p95 of the last CONNECTOR_HEALTH_WINDOW)",
    flags: {},
    run: async ({ nc, timeoutMs, print }) => print(await call(nc, rpcs.payments.connectors, {}, timeoutMs)),
  },
  "shop:connectors": {
    usage: '--shop ID [--card tbank,emulator] [--sbp tbank] [--json]  (the acquirers of each method in failover order; "" goes back to the default; neither flag: show them)',
    flags: { shop: "string", card: "string", sbp: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const shopId = requireFlag(flags, "shop");
      const given: Record<PaymentMethod, ConnectorId[] | null | undefined> = { CARD: listFlag(flags, "card"), SBP: listFlag(flags, "sbp") };
      const { shop } = await call(nc, rpcs.directory.getShop, { shopId }, timeoutMs);
      if (given.CARD === undefined && given.SBP === undefined) return print({ shopId, sandbox: shop.sandbox, connectors: shop.connectors ?? {} });
      const next: ShopConnectors = {};
      for (const m of PAYMENT_METHODS) {
        const list = given[m] === undefined ? shop.connectors?.[m] : given[m];
        if (list) next[m] = list;
      }
      const updated = await call(nc, rpcs.directory.updateShop, { shopId, connectors: next.CARD || next.SBP ? next : null }, timeoutMs);
      print({ shopId, sandbox: updated.sandbox, connectors: updated.connectors ?? {} });
    },
  },
};
