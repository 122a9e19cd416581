import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { WrkRun } from "./wrk.ts";

/** One API operation under load: what wrk sends (a warm-up run first, then the measured run). */
export type ApiPhase = { name: string; label: string; warmup: Omit<WrkRun, "seconds" | "connections" | "threads">; run: Omit<WrkRun, "seconds" | "connections" | "threads"> };

/** Payments the phases read or cancel, written one per line for the wrk script's `ids` mode. */
export type PhasePools = { getIds: string[]; orderIds: string[]; warmupCancelIds: string[]; cancelIds: string[] };

/**
 * The six operations of spec §4 on the seeded shop, create again as the SDK sends it, then
 * merchant-initiated charges of a saved card when one is given. Cancel and charge go last: each
 * one commits an event whose webhook the pipeline then works on, which would load the phases after it.
 */
export function apiPhases(opts: { gatewayUrl: string; apiKey: string; dir: string; pools: PhasePools; runId: string; deepPage: number; chargeMethodId?: string }): ApiPhase[] {
  const { gatewayUrl: api, apiKey, dir, pools } = opts;
  const file = (name: string, lines: string[]) => {
    const path = join(dir, `${name}.txt`);
    writeFileSync(path, lines.join("\n") + "\n");
    return path;
  };
  const apiPath = new URL(api).pathname;
  const ids = (name: string, lines: string[], method: string, path: string) => ({
    url: `${api}/v1/payments`,
    apiKey,
    script: ["ids", file(name, lines), method, `${apiPath}${path}`],
  });
  const same = (run: ApiPhase["run"]) => ({ warmup: run, run });
  return [
    {
      name: "create",
      label: "create payment (POST /v1/payments)",
      warmup: { url: `${api}/v1/payments`, apiKey, script: ["create", `warm-${opts.runId}`] },
      run: { url: `${api}/v1/payments`, apiKey, script: ["create", `bench-${opts.runId}`] },
    },
    {
      name: "sdk-create",
      label: "SDK's create (with an Idempotency-Key)",
      warmup: { url: `${api}/v1/payments`, apiKey, script: ["sdk-create", `sdk-warm-${opts.runId}`] },
      run: { url: `${api}/v1/payments`, apiKey, script: ["sdk-create", `sdk-bench-${opts.runId}`] },
    },
    { name: "get", label: "get by id (GET /v1/payments/{id})", ...same(ids("get-ids", pools.getIds, "GET", "/v1/payments/{}")) },
    { name: "lookup", label: "lookup by orderId (GET ?orderId=)", ...same(ids("order-ids", pools.orderIds, "GET", "/v1/payments?orderId={}")) },
    {
      name: "list",
      label: `list: page ${opts.deepPage} × 100`,
      ...same({ url: `${api}/v1/payments?page=${opts.deepPage}&limit=100`, apiKey, script: ["static"] }),
    },
    { name: "balance", label: "balance (GET /v1/balance)", ...same({ url: `${api}/v1/balance`, apiKey, script: ["static"] }) },
    {
      name: "cancel",
      label: "cancel (POST /v1/payments/{id}/cancel)",
      warmup: ids("cancel-warm-ids", pools.warmupCancelIds, "POST", "/v1/payments/{}/cancel"),
      run: ids("cancel-ids", pools.cancelIds, "POST", "/v1/payments/{}/cancel"),
    },
    // Only with a saved card to charge (the PostgreSQL rows compare the spec's operations).
    ...(opts.chargeMethodId ? [chargePhase(api, apiKey, opts.runId, opts.chargeMethodId)] : []),
  ];
}

/**
 * Merchant-initiated charges of one saved card: each a payment born PENDING, a charge at the
 * acquirer emulator (its own HTTP call, commit and callback) and the SUCCESS committed, answered
 * 201 SUCCESS; the callback that follows is a repeat.
 */
export const chargePhase = (gatewayUrl: string, apiKey: string, runId: string, methodId: string): ApiPhase => ({
  name: "charge",
  label: "merchant-initiated charge (paymentMethodId)",
  warmup: { url: `${gatewayUrl}/v1/payments`, apiKey, script: ["charge", `charge-warm-${runId}`, methodId] },
  run: { url: `${gatewayUrl}/v1/payments`, apiKey, script: ["charge", `charge-${runId}`, methodId] },
});
