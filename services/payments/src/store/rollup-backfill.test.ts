import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@payaccept/platform";
import { migrationsBefore } from "../../test-support/migrations.ts";
import { openPaymentsFile as openPaymentsStore, createPaymentsRepo } from "./payments-store.sqlite.ts";
import { schema } from "./schema.sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "payments-backfill-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the rollup migration backfills the payments and refunds stored before it, by Moscow day", () => {
  // The store as it was before the rollup: only the first migration.
  const path = join(dir, "payments.db");
  const old = openStore(path, schema, migrationsBefore("overview_rollup"));
  const insert = old.sqlite.prepare(
    `INSERT INTO payments (id, shop_id, account_id, seq, order_id, status, amount_kopecks, commission_kopecks, method, is_test, created_at, updated_at)
     VALUES (?, 'S', 'acct', ?, ?, ?, ?, 0, ?, 0, ?, ?)`,
  );
  const rows = [
    ["SUCCESS", 100, "SBP", "2026-03-01T20:59:59.000Z"],
    ["SUCCESS", 250, "SBP", "2026-03-01T21:00:00.000Z"],
    ["SUCCESS", 50, "SBP", "2026-03-02T10:00:00.000Z"],
    ["CREATED", 70, null, "2026-03-02T11:00:00.000Z"],
  ] as const;
  rows.forEach(([status, amount, method, at], i) => insert.run(`id-${i}`, i + 1, `o-${i}`, status, amount, method, Date.parse(at), Date.parse(at)));
  const refund = old.sqlite.prepare(
    `INSERT INTO refunds (id, payment_id, shop_id, amount_kopecks, balance_kopecks, status, created_at, completed_at) VALUES (?, 'id-1', 'S', ?, 0, ?, 0, ?)`,
  );
  refund.run("r-1", 40, "SUCCEEDED", Date.parse("2026-03-02T10:00:00Z"));
  refund.run("r-2", 60, "FAILED", Date.parse("2026-03-02T10:00:00Z"));
  old.sqlite.close();

  const store = openPaymentsStore(path);
  expect(createPaymentsRepo(store, () => {}).dailyStats(["S"], "2026-03-01", "2026-03-02")).toEqual([
    { day: "2026-03-01", method: "SBP", status: "SUCCESS", count: 1, sumKopecks: 100 },
    { day: "2026-03-02", method: null, status: "CREATED", count: 1, sumKopecks: 70 },
    { day: "2026-03-02", method: "SBP", status: "SUCCESS", count: 2, sumKopecks: 300 },
  ]);
  expect(createPaymentsRepo(store, () => {}).dailyRefunds(["S"], "2026-03-01", "2026-03-02")).toEqual([{ day: "2026-03-02", count: 1, sumKopecks: 40 }]);
  store.sqlite.close();
});
