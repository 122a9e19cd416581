import { prom, registry } from "@payaccept/platform";
import type { ReceiptsStore } from "./store/receipts-store.ts";
import { RECEIPT_ROW_STATUSES } from "./store/schema.ts";

/**
 * Receipts by status, read at scrape time: FAILED above zero needs an operator (receipt:resend),
 * and PENDING or SENT that keep growing mean the cash register is not keeping up.
 */
export function registerReceiptGauges(store: ReceiptsStore): void {
  new prom.Gauge({
    name: "receipts_by_status",
    help: "Fiscal receipts by status (PENDING, SENT, REGISTERED, FAILED)",
    labelNames: ["status"] as const,
    registers: [registry],
    async collect() {
      const counts = new Map((await store.countsByStatus()).map((c) => [c.status, c.n]));
      for (const status of RECEIPT_ROW_STATUSES) this.set({ status }, counts.get(status) ?? 0);
    },
  });
}
