import { rpcs } from "@payaccept/contracts";
import { call } from "@payaccept/platform";
import { requireShaped, type Command } from "../cli.ts";
import { knownShop } from "./known.ts";
import { optionalFlag, positiveIntFlag } from "./money.ts";

/**
 * A shop's saved payment methods (docs/payments.md, "Saved methods"): listed (one customer's with
 * --customer) and revoked, as the shop itself does through the API. Methods are shop-scoped and
 * have no owner look-up, so --shop is always given; it is checked with the directory first, since
 * payments lists nothing for a shop it never saw and a typo would read as "no methods".
 */
export const methodCommands: Record<string, Command> = {
  "methods:list": {
    usage: "--shop ID [--customer CUSTOMER_ID] [--limit N] [--starting-after METHOD_ID] [--json]  (newest first; hasMore: ask again with the last id)",
    flags: { shop: "string", customer: "string", limit: "string", "starting-after": "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const query = {
        customerId: optionalFlag(flags, "customer"),
        limit: flags.limit === undefined ? 20 : positiveIntFlag(flags, "limit"),
        startingAfter: flags["starting-after"] === undefined ? undefined : requireShaped(flags, "starting-after", "uuid"),
      };
      print(await call(nc, rpcs.payments.listMethods, { shopId: await knownShop(nc, flags, timeoutMs), query }, timeoutMs));
    },
  },
  "method:revoke": {
    usage: "--shop ID --method METHOD_ID [--json]  (every later charge with it is refused; a repeat answers it as it is)",
    flags: { shop: "string", method: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const id = requireShaped(flags, "method", "uuid");
      print(await call(nc, rpcs.payments.revokeMethod, { shopId: await knownShop(nc, flags, timeoutMs), id }, timeoutMs));
    },
  },
};
