import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storesPerFile } from "../../../../tests/harness/engines.ts";
import { newPayment } from "../../test-support/new-payment.ts";
import { openPaymentsStore } from "./open-payments-store.ts";
import { OrderIdTaken, type OutboxRow, type PaymentsStore } from "./payments-store.ts";

const stores = storesPerFile();
const dir = mkdtempSync(join(tmpdir(), "payments-import-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hooks = { onCommitted: () => {}, onEnded: () => {} };

const input = (orderId: string) => newPayment("S", orderId, { method: "SBP" });

const unpublished = (s: PaymentsStore): Promise<OutboxRow[]> => s.outbox.round(100, async () => []);

test("a deployment moving to PostgreSQL brings its payments.db once: payments, refunds, rollups and the unpublished outbox, numbering continued", async () => {
  const file = join(dir, "payments.db");
  const lite = await openPaymentsStore({ engine: "sqlite", path: file }, hooks);
  const [a, b] = [await lite.payments.insert(input("a"), 1000, 60_000), await lite.payments.insert(input("b"), 1001, 60_000)];
  await lite.payments.transition(a.id, "cancel", 2000);
  await lite.payments.transition(b.id, "start", 2000);
  const paid = (await lite.payments.transition(b.id, "pay", 2100, { patch: () => ({ paidAt: 2100 }) }))!.row;
  const { refund } = await lite.refunds.open(paid, { amountKopecks: 4000 }, 3000, 10_000);
  await lite.refunds.end(refund.id, { status: "SUCCEEDED" }, 3100);
  const events = (await unpublished(lite)).map((e) => e.eventId);
  await lite.close();

  const choice = await stores.next("postgres", "payments.db");
  const pg = await openPaymentsStore(choice, hooks, { importFrom: file });
  try {
    expect(await pg.payments.byId(b.id)).toEqual({ ...paid, refundedKopecks: 4000, updatedAt: 3100 });
    expect(await pg.refunds.ofPayment(b.id)).toMatchObject([{ id: refund.id, status: "SUCCEEDED", amountKopecks: 4000 }]);
    expect((await pg.payments.list("S", { page: 1, limit: 10, status: ["CANCELED"] } as never)).total).toBe(1);
    expect((await unpublished(pg)).map((e) => e.eventId)).toEqual(events);
    const c = await pg.payments.insert(input("c"), 4000, 60_000);
    expect(c.seq).toBe(3);
    await expect(pg.payments.insert(input("a"), 4000, 60_000)).rejects.toBeInstanceOf(OrderIdTaken);
    // The outbox's numbering goes on after the imported events.
    await pg.payments.transition(c.id, "cancel", 5000);
    expect((await unpublished(pg)).map((e) => e.eventId)).toEqual([...events, `${c.id}:CANCELED`]);
  } finally {
    await pg.close();
  }
  // The file is marked: a store lost later is never refilled from it.
  const again = await openPaymentsStore(await stores.next("postgres", "payments.db"), hooks, { importFrom: file });
  try {
    expect(await again.payments.byId(a.id)).toBeUndefined();
  } finally {
    await again.close();
  }
});
