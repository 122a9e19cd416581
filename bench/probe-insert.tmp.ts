import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GroupCommit } from "@payaccept/platform";
import { createPaymentsRepo } from "../services/payments/src/store/payments-repo.ts";
import type { NewPayment } from "../services/payments/src/store/payments-store.ts";
import { openPaymentsFile } from "../services/payments/src/store/payments-store.sqlite.ts";

const shopId = "0190f0c4-7b6a-7000-8000-0000000000aa";
let orders = 0;
const newPayment = (): NewPayment => ({
  shopId, accountId: shopId, orderId: `steps-${++orders}`, amountKopecks: 12345 + orders % 1000, commissionKopecks: 370, description: "Bench order", email: null,
  method: null, telegramId: "123456789", metadata: { cart: String(orders) }, receipt: null, successUrl: null, failUrl: null, isTest: false,
  createCallId: Bun.randomUUIDv7(), customerId: null, saveMethod: false,
});
const GROUP = 16;
async function variant(name: string, prep: (db: any) => void) {
  const dir = mkdtempSync(join(tmpdir(), "probe-"));
  const store = openPaymentsFile(join(dir, "payments.db"));
  prep(store.sqlite);
  const repo = createPaymentsRepo(store, () => {});
  const group = new GroupCommit(store.sqlite);
  // seed 20k
  for (let b = 0; b < 20_000 / 500; b++) store.db.transaction(() => { for (let k = 0; k < 500; k++) repo.insert(newPayment(), Date.now(), 3_600_000); });
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const before = process.cpuUsage();
    const n = 4000;
    for (let i = 0; i < n / GROUP; i++) await Promise.all(Array.from({ length: GROUP }, () => group.run(() => repo.insert(newPayment(), Date.now(), 3_600_000))));
    const u = process.cpuUsage(before);
    rounds.push((u.user + u.system) / n);
  }
  console.log(name.padEnd(50), rounds.sort((a, b) => a - b).map((x) => x.toFixed(0)).join(" "), "µs/insert");
  store.sqlite.close();
  rmSync(dir, { recursive: true, force: true });
}
const which = process.argv[2] ?? "all";
for (let rep = 0; rep < 2; rep++) {
  if (which === "all" || which === "a") await variant("as today", () => {});
  if (which === "all" || which === "b") await variant("without list indexes", (db) => { for (const i of ["payments_shop_created_idx", "payments_shop_status_seq_idx", "payments_shop_amount_idx"]) db.run(`DROP INDEX ${i}`); });
  if (which === "all" || which === "c") await variant("without list indexes and expires", (db) => { for (const i of ["payments_shop_created_idx", "payments_shop_status_seq_idx", "payments_shop_amount_idx", "payments_expires_idx"]) db.run(`DROP INDEX ${i}`); });
}
