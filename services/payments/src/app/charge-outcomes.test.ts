import { describe, expect, test } from "bun:test";
import type { PaymentRow } from "../store/payments-store.ts";
import { ChargeOutcomes, type OutcomeKey } from "./charge-outcomes.ts";
import { outcomeKey, type Applied } from "./provider-results.ts";

const row = (status: string) => ({ id: "p1", status }) as PaymentRow;
const paid: OutcomeKey = { connector: "emulator", sessionId: "s1", kind: "paid" };

describe("a charge's second report", () => {
  test("repeats the outcome this process committed, once its commit is done, and only once", async () => {
    const outcomes = new ChargeOutcomes();
    let commit!: (a: Applied) => void;
    outcomes.applying("p1", paid, new Promise<Applied>((resolve) => (commit = resolve)));
    const repeat = outcomes.repeatOf("p1", paid);
    let settled = false;
    void repeat.then(() => (settled = true));
    await Bun.sleep(1);
    expect(settled).toBe(false);
    commit({ result: "applied", row: row("SUCCESS") });
    expect((await repeat)?.status).toBe("SUCCESS");
    expect(await outcomes.repeatOf("p1", paid)).toBeUndefined();
  });

  test("takes the full path for another outcome, session or connector, and when the first report moved nothing or failed", async () => {
    const outcomes = new ChargeOutcomes();
    const first = (a: Applied | Error) => outcomes.applying("p1", paid, a instanceof Error ? Promise.reject(a) : Promise.resolve(a));
    for (const other of [{ ...paid, kind: "declined" as const }, { ...paid, sessionId: "s2" }, { ...paid, connector: "tbank" as const }, undefined]) {
      first({ result: "applied", row: row("SUCCESS") });
      expect(await outcomes.repeatOf("p1", other)).toBeUndefined();
    }
    first({ result: "repeat", row: row("SUCCESS") });
    expect(await outcomes.repeatOf("p1", paid)).toBeUndefined();
    first(new Error("database is locked"));
    expect(await outcomes.repeatOf("p1", paid)).toBeUndefined();
  });

  test("a callback waits for the charge this process is making, even when the charge fails", async () => {
    const outcomes = new ChargeOutcomes();
    let answer!: () => void;
    const charging = outcomes.charge("p1", () => new Promise<void>((resolve) => (answer = resolve)).then(() => Promise.reject(new Error("no answer"))));
    let waited = false;
    const callback = outcomes.charged("p1").then(() => (waited = true));
    await Bun.sleep(1);
    expect(waited).toBe(false);
    answer();
    await expect(charging).rejects.toThrow("no answer");
    await callback;
    expect(waited).toBe(true);
    await outcomes.charged("p1");
  });

  test("a decline that reports the charged method ended is never a repeat: each report that says so ends the method", () => {
    const ended = { methodId: "m1", method: "CARD", status: "EXPIRED", card: null, sbp: null, revokedBy: null } as const;
    const failure = { reason: "CARD_EXPIRED", params: {} } as never;
    expect(outcomeKey("emulator", "s1", { kind: "declined", failure, savedMethod: ended })).toBeUndefined();
    expect(outcomeKey("emulator", "s1", { kind: "declined", failure, savedMethod: { ...ended, status: "ACTIVE" } })).toEqual({ connector: "emulator", sessionId: "s1", kind: "declined" });
    expect(outcomeKey("emulator", "s1", { kind: "declined", failure, savedMethod: null })).toEqual({ connector: "emulator", sessionId: "s1", kind: "declined" });
  });
});
