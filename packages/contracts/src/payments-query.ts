import { ListPaymentsQuery, LookupPaymentQuery } from "./api.ts";
import type { RpcRequest, rpcs } from "./rpc.ts";
import { z } from "zod";

type RawListQuery = RpcRequest<typeof rpcs.payments.list>["query"];
const LIST_PARAMS = ["from", "to", "status", "page", "limit"] as const;

/**
 * GET /v1/payments (§4.2): with orderId it is a lookup and every other parameter is ignored;
 * without, a list whose parameters are validated here (so the client gets every problem at once)
 * and forwarded as the raw strings that rpcs.payments.list parses itself.
 */
export const PaymentsQuery = z.record(z.string(), z.union([z.string(), z.array(z.string())])).transform((q, ctx) => {
  const lookup = q.orderId !== undefined;
  const checked = lookup ? LookupPaymentQuery.safeParse({ orderId: q.orderId }) : ListPaymentsQuery.safeParse(q);
  if (!checked.success) {
    // Re-raised as they are, so each keeps its code, limits and rule (too_small with minimum 1,
    // FROM_AFTER_TO), the same as a body's issues; not collapsed into a bare "custom".
    for (const issue of checked.error.issues) ctx.addIssue({ ...issue });
    return z.NEVER;
  }
  if (lookup) return { mode: "lookup" as const, orderId: q.orderId as string };
  const query = Object.fromEntries(LIST_PARAMS.filter((p) => q[p] !== undefined).map((p) => [p, q[p]])) as RawListQuery;
  return { mode: "list" as const, query };
});
