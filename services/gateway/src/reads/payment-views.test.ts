import { describe, expect, test } from "bun:test";
import { PaymentViews, SILENT_SOURCE_MS } from "./payment-views.ts";

const SHOP = "shop-1";
const ID = "0190f0c4-7b6a-7000-8000-000000000001";
const bytes = (status: string, id = ID) => new TextEncoder().encode(JSON.stringify({ id, orderId: "order-1", status }));
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const HOLD = 10_000;

/** A model with a hand-driven clock, heard from source "p1" (its notice 1) unless told otherwise, and a payments stand-in counting its reads. */
function setup(opts: { maxEntries?: number; maxAgeMs?: number; holdMs?: number; heard?: boolean } = {}) {
  const clock = { t: 0 };
  const views = new PaymentViews({ maxEntries: opts.maxEntries ?? 100, maxAgeMs: opts.maxAgeMs ?? 30_000, holdMs: opts.holdMs ?? 0, now: () => clock.t });
  let seq = 0;
  const notice = (ids: string[] = [], source = "p1", n = ++seq) => views.notice({ source, seq: n, ids });
  if (opts.heard ?? true) notice();
  const payments = { status: "CREATED", reads: 0 };
  const read = async () => {
    payments.reads++;
    return bytes(payments.status);
  };
  return { views, clock, notice, payments, read };
}

describe("PaymentViews", () => {
  test("a payment read once is answered from memory, the same bytes", async () => {
    const { views, payments, read } = setup();
    const first = await views.byId(SHOP, ID, read);
    const second = await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(1);
    expect(text(second)).toBe(text(first));
  });

  test("keeps nothing before a source is heard: no notice could tell it of a change", async () => {
    const { views, payments, read } = setup({ heard: false });
    await views.byId(SHOP, ID, read);
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(2);
  });

  test("another shop's read of a kept payment goes to payments (whose answer is its 404)", async () => {
    const { views, payments, read } = setup();
    await views.byId(SHOP, ID, read);
    await views.byId("shop-2", ID, read);
    expect(payments.reads).toBe(2);
  });

  test("a notice naming the payment drops it: the next read sees the change", async () => {
    const { views, payments, read, notice } = setup();
    await views.byId(SHOP, ID, read);
    payments.status = "CANCELED";
    notice([ID]);
    expect(JSON.parse(text(await views.byId(SHOP, ID, read))).status).toBe("CANCELED");
    expect(payments.reads).toBe(2);
  });

  test("a read under way when a notice names its payment is answered but not kept", async () => {
    const { views, payments, notice } = setup();
    let answer!: (b: Uint8Array<ArrayBuffer>) => void;
    const reading = views.byId(SHOP, ID, () => new Promise((resolve) => (answer = resolve)));
    notice([ID]);
    answer(bytes("CREATED")); // read before the change committed, answered after its notice
    expect(JSON.parse(text(await reading)).status).toBe("CREATED");
    payments.status = "CANCELED";
    const read = async () => (payments.reads++, bytes(payments.status));
    expect(JSON.parse(text(await views.byId(SHOP, ID, read))).status).toBe("CANCELED");
  });

  test("a gap in a source's notices drops everything", async () => {
    const { views, payments, read, notice } = setup();
    await views.byId(SHOP, ID, read);
    notice([], "p1", 5); // notices 2–4 were lost
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(2);
  });

  test("a source silent past SILENT_SOURCE_MS drops everything, and nothing is kept until a source is heard again", async () => {
    const { views, payments, read, clock, notice } = setup();
    await views.byId(SHOP, ID, read);
    clock.t += SILENT_SOURCE_MS / 2;
    views.forgetSilent();
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(1);
    clock.t += SILENT_SOURCE_MS;
    views.forgetSilent();
    await views.byId(SHOP, ID, read);
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(3);
    notice([], "p4", 1);
    await views.byId(SHOP, ID, read);
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(4);
  });

  test("a lost connection drops everything and forgets the sources", async () => {
    const { views, payments, read } = setup();
    await views.byId(SHOP, ID, read);
    views.disconnected();
    await views.byId(SHOP, ID, read);
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(3);
  });

  test("a read under way when everything is dropped is not kept", async () => {
    const { views, payments, read } = setup();
    let answer!: (b: Uint8Array<ArrayBuffer>) => void;
    const reading = views.byId(SHOP, ID, () => new Promise((resolve) => (answer = resolve)));
    views.disconnected();
    views.notice({ source: "p1", seq: 1, ids: [] });
    answer(bytes("CREATED"));
    await reading;
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(1);
  });

  test("a payment kept past maxAgeMs is read again", async () => {
    const { views, payments, read, clock } = setup({ maxAgeMs: 1000 });
    await views.byId(SHOP, ID, read);
    clock.t += 999;
    await views.byId(SHOP, ID, read);
    clock.t += 2;
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(2);
  });

  test("holds at most maxEntries, the oldest going first; 0 keeps none", async () => {
    const { views, read } = setup({ maxEntries: 2 });
    const ids = ["a", "b", "c"].map((x) => `0190f0c4-7b6a-7000-8000-00000000000${x}`);
    for (const id of ids) await views.byId(SHOP, id, read);
    expect(views.size).toBe(2);
    const none = setup({ maxEntries: 0 });
    await none.views.byId(SHOP, ID, none.read);
    await none.views.byId(SHOP, ID, none.read);
    expect(none.payments.reads).toBe(2);
  });

  test("a lookup learns the payment's id and keeps it: the next lookup and a get of that id are answered from memory", async () => {
    const { views, payments, read } = setup();
    await views.byOrderId(SHOP, "order-1", read);
    await views.byOrderId(SHOP, "order-1", read);
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(1);
  });

  test("a get teaches the payment's orderId: a lookup of it is answered from memory, the same bytes", async () => {
    const { views, payments, read } = setup();
    const got = await views.byId(SHOP, ID, read);
    const found = await views.byOrderId(SHOP, "order-1", read);
    expect(payments.reads).toBe(1);
    expect(text(found)).toBe(text(got));
  });

  test("the same orderId looked up by another shop is asked of payments: an orderId is one shop's", async () => {
    const { views, payments, read } = setup();
    await views.byId(SHOP, ID, read);
    const lookups: string[] = [];
    await views.byOrderId("shop-2", "order-1", async () => (lookups.push("shop-2"), bytes("CREATED", "0190f0c4-7b6a-7000-8000-000000000002")));
    expect([payments.reads, lookups]).toEqual([1, ["shop-2"]]);
    // And shop-2's answer taught nothing about the first shop's payment.
    await views.byOrderId(SHOP, "order-1", read);
    expect(payments.reads).toBe(1);
  });

  test("a lookup of an orderId learnt from a get, once a notice dropped the payment, asks payments and sees the change", async () => {
    const { views, payments, read, notice } = setup();
    await views.byId(SHOP, ID, read);
    payments.status = "CANCELED";
    notice([ID]);
    expect(JSON.parse(text(await views.byOrderId(SHOP, "order-1", read))).status).toBe("CANCELED");
    expect(payments.reads).toBe(2);
    await views.byOrderId(SHOP, "order-1", read);
    expect(payments.reads).toBe(2);
  });

  test("a get answered but not kept (a notice came meanwhile) still teaches nothing stale: the lookup reads payments", async () => {
    const { views, payments, notice, read } = setup();
    let answer!: (b: Uint8Array<ArrayBuffer>) => void;
    const reading = views.byId(SHOP, ID, () => new Promise((resolve) => (answer = resolve)));
    notice([ID]);
    answer(bytes("CREATED"));
    await reading;
    payments.status = "CANCELED";
    expect(JSON.parse(text(await views.byOrderId(SHOP, "order-1", read))).status).toBe("CANCELED");
    expect(payments.reads).toBe(1);
  });

  test("a lookup under way when any notice comes keeps the orderId's id but not the payment", async () => {
    const { views, payments, read, notice } = setup();
    let answer!: (b: Uint8Array<ArrayBuffer>) => void;
    const reading = views.byOrderId(SHOP, "order-1", () => new Promise((resolve) => (answer = resolve)));
    notice([ID]);
    answer(bytes("CREATED"));
    await reading;
    payments.status = "CANCELED";
    expect(JSON.parse(text(await views.byOrderId(SHOP, "order-1", read))).status).toBe("CANCELED");
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(1);
  });

  test("keeps nothing for holdMs after its start: a payments process without notices may not have answered yet", async () => {
    const { views, payments, read, clock } = setup({ holdMs: HOLD });
    await views.byId(SHOP, ID, read);
    await views.byId(SHOP, ID, read);
    expect([payments.reads, views.on]).toEqual([2, false]);
    clock.t += HOLD;
    await views.byId(SHOP, ID, read);
    await views.byId(SHOP, ID, read);
    expect([payments.reads, views.on]).toEqual([3, true]);
  });

  test("a payments process introduced without a source (a release before the notices) drops everything and keeps nothing until none has answered for holdMs", async () => {
    const { views, payments, read, clock } = setup({ holdMs: HOLD });
    clock.t += HOLD;
    await views.byId(SHOP, ID, read);
    expect(views.introduced("p1")).toBe(false);
    expect(views.introduced("")).toBe(true);
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(2);
    clock.t += HOLD / 2;
    expect(views.introduced("")).toBe(false); // held already: the hold starts again
    clock.t += HOLD - 1;
    await views.byId(SHOP, ID, read);
    await views.byId(SHOP, ID, read);
    expect([payments.reads, views.on]).toEqual([4, false]);
    clock.t += 1;
    await views.byId(SHOP, ID, read);
    await views.byId(SHOP, ID, read);
    expect([payments.reads, views.on]).toEqual([5, true]);
  });

  test("a read answered by a process without notices is not kept, though the answer came first", async () => {
    const { views, payments, read } = setup();
    const answered = views.byId(SHOP, ID, async () => {
      views.introduced(""); // the reply's introduction is read before the reader continues
      return read();
    });
    await answered;
    expect(views.on).toBe(true); // holdMs 0
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(2);
  });

  test("a source named in a reply but not heard: everything dropped and nothing kept until its notices come", async () => {
    const { views, payments, read, notice } = setup();
    await views.byId(SHOP, ID, read);
    views.introduced("p2");
    await views.byId(SHOP, ID, read);
    await views.byId(SHOP, ID, read);
    expect([payments.reads, views.on]).toEqual([3, false]);
    notice([], "p2", 1);
    await views.byId(SHOP, ID, read);
    await views.byId(SHOP, ID, read);
    expect([payments.reads, views.on]).toEqual([4, true]);
  });

  test("a source named and not heard within SILENT_SOURCE_MS turns the model off for holdMs", async () => {
    const { views, clock, notice } = setup({ holdMs: HOLD });
    clock.t += HOLD;
    views.introduced("p2");
    clock.t += SILENT_SOURCE_MS;
    notice(); // p1 goes on being heard
    expect(views.forgetSilent()).toBe(false);
    clock.t += 1;
    notice();
    expect(views.forgetSilent()).toBe(true); // off already while p2 was unheard; now held for holdMs
    expect(views.on).toBe(false);
    clock.t += HOLD - 1;
    notice();
    expect(views.on).toBe(false);
    clock.t += 1;
    expect(views.on).toBe(true);
  });

  test.each(["lookup", "get"])("a process first heard drops everything, orderIds too (learnt by a %s): it may run on a store restored from a backup", async (first) => {
    const { views, payments, read, notice } = setup();
    await (first === "lookup" ? views.byOrderId(SHOP, "order-1", read) : views.byId(SHOP, ID, read));
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(1);
    notice([], "p2", 1);
    payments.status = "CANCELED";
    expect(JSON.parse(text(await views.byOrderId(SHOP, "order-1", read))).status).toBe("CANCELED");
    await views.byId(SHOP, ID, read);
    expect(payments.reads).toBe(2);
  });
});
