import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPaymentsFile } from "../services/payments/src/store/payments-store.sqlite.ts";
const shopId = "0190f0c4-7b6a-7000-8000-0000000000aa";
let n = 0;
const cols = ["id","shop_id","account_id","seq","order_id","status","amount_kopecks","commission_kopecks","description","email","method","method_fixed","telegram_id","metadata","receipt","create_call_id","success_url","fail_url","is_test","created_at","updated_at","expires_at","charge_retry_at","customer_id","save_method","hold","held_kopecks","saved_method_id","payment_method","merchant_initiated"];
const row = () => { n++; const t = Date.now(); return [Bun.randomUUIDv7(), shopId, shopId, n, `o-${n}`, "CREATED", 12345 + n % 1000, 370, "Bench order", null, null, 0, "123456789", JSON.stringify({cart: String(n)}), null, Bun.randomUUIDv7(), null, null, 0, t, t, t + 3600000, null, null, 0, 0, null, null, null, 0]; };
function run(name: string, drop: string[], returning: boolean, G = 16) {
  const dir = mkdtempSync(join(tmpdir(), "probe-"));
  const store = openPaymentsFile(join(dir, "payments.db"));
  const db = store.sqlite;
  for (const i of drop) db.run(`DROP INDEX ${i}`);
  const q = db.prepare(`INSERT INTO payments (${cols.join(",")}) VALUES (${cols.map(() => "?").join(",")}) ON CONFLICT DO NOTHING${returning ? " RETURNING *" : ""}`);
  const ins = db.transaction((rows: any[][]) => { for (const r of rows) returning ? q.values(...r) : q.run(...r); });
  for (let b = 0; b < 40; b++) ins(Array.from({ length: 500 }, row));
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const before = process.cpuUsage();
    const N = 4000;
    for (let i = 0; i < N / G; i++) ins(Array.from({ length: G }, row));
    const u = process.cpuUsage(before);
    rounds.push((u.user + u.system) / N);
  }
  console.log(name.padEnd(50), rounds.sort((a, b) => a - b).map((x) => x.toFixed(1)).join(" "), "µs/insert");
  db.close(); rmSync(dir, { recursive: true, force: true });
}
const LIST = ["payments_shop_created_idx", "payments_shop_status_seq_idx", "payments_shop_amount_idx"];
for (let k = 0; k < 2; k++) {
run("all indexes, RETURNING *", [], true);
run("all indexes, no RETURNING", [], false);
run("no list indexes, no RETURNING", LIST, false);
run("all indexes, no RETURNING, groups of 64", [], false, 64);
run("all indexes, no RETURNING, groups of 1", [], false, 1);
}
