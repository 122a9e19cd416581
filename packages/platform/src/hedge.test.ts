import { describe, expect, test } from "bun:test";
import { HEDGE_BURST, HedgeBudget, Hedger } from "./hedge.ts";

/** An attempt that answers what it is told to, when it is told to: the test drives each one. */
function attempts() {
  const sent: { msLeft: number; answer: (v: string) => void; fail: (e: Error) => void }[] = [];
  const attempt = (msLeft: number) =>
    new Promise<string>((answer, fail) => {
      sent.push({ msLeft, answer, fail });
    });
  return { sent, attempt };
}

const AFTER_MS = 20;
/** A hedger's run of one call (afterMs AFTER_MS unless told, deadline 2 s away unless told), counting its copies. */
function hedge<T>(attempt: (msLeft: number) => Promise<T>, over: { afterMs?: number; deadline?: number; budget?: HedgeBudget } = {}) {
  let copies = 0;
  const hedger = new Hedger(over.afterMs ?? AFTER_MS, over.budget);
  const call = hedger.run(attempt, over.deadline ?? Date.now() + 2_000, () => void copies++);
  return { call, copies: () => copies };
}

describe("Hedger: copies of an unanswered call", () => {
  test("an attempt answered in time is the only one sent", async () => {
    const { sent, attempt } = attempts();
    const { call, copies } = hedge(attempt);
    sent[0]!.answer("first");
    expect(await call).toBe("first");
    await Bun.sleep(AFTER_MS * 3);
    expect(sent).toHaveLength(1);
    expect(copies()).toBe(0);
  });

  test("while nothing answers, a copy goes out about every afterMs; the first answer wins, whichever attempt gives it", async () => {
    const { sent, attempt } = attempts();
    const { call, copies } = hedge(attempt);
    while (sent.length < 3) await Bun.sleep(5);
    sent[2]!.answer("third");
    sent[0]!.answer("first, too late");
    expect(await call).toBe("third");
    await Bun.sleep(AFTER_MS * 3);
    expect(sent).toHaveLength(3);
    expect(copies()).toBe(2);
    // Each attempt is given only what is left of the caller's deadline.
    expect(sent[2]!.msLeft).toBeLessThan(sent[0]!.msLeft);
  });

  test("one hedger serves many waiting calls, each copied on its own and answered by its own attempts", async () => {
    const hedger = new Hedger(AFTER_MS);
    const calls = Array.from({ length: 5 }, (_, i) => {
      const a = attempts();
      return { ...a, call: hedger.run(a.attempt, Date.now() + 2_000, () => {}), i };
    });
    while (calls.some((c) => c.sent.length < 2)) await Bun.sleep(5);
    for (const c of calls) c.sent[1]!.answer(`copy of ${c.i}`);
    expect(await Promise.all(calls.map((c) => c.call))).toEqual(calls.map((c) => `copy of ${c.i}`));
  });

  test("a failed attempt does not end the call while a copy is pending", async () => {
    const { sent, attempt } = attempts();
    const { call } = hedge(attempt);
    while (sent.length < 2) await Bun.sleep(5);
    sent[1]!.fail(new Error("no responders"));
    sent[0]!.answer("the first, after all");
    expect(await call).toBe("the first, after all");
  });

  test("a failure with nothing else pending ends the call at once, as without hedging", async () => {
    const { sent, attempt } = attempts();
    const { call } = hedge(attempt, { afterMs: 60_000 });
    sent[0]!.fail(new Error("no responders"));
    await expect(call).rejects.toThrow("no responders");
  });

  test("no copy is sent that could not be answered before the deadline", async () => {
    const { sent, attempt } = attempts();
    const { call, copies } = hedge(attempt, { deadline: Date.now() + AFTER_MS * 2.5 });
    await Bun.sleep(AFTER_MS * 4);
    expect(sent).toHaveLength(2);
    expect(copies()).toBe(1);
    sent[0]!.fail(new Error("timeout"));
    sent[1]!.fail(new Error("timeout"));
    await expect(call).rejects.toThrow("timeout");
  });

  test("afterMs 0 sends no copy", async () => {
    const { sent, attempt } = attempts();
    const { call } = hedge(attempt, { afterMs: 0 });
    await Bun.sleep(30);
    expect(sent).toHaveLength(1);
    sent[0]!.answer("only");
    expect(await call).toBe("only");
  });

  test("with the budget spent, a silent call waits for its one attempt", async () => {
    const budget = new HedgeBudget();
    while (budget.take());
    const { sent, attempt } = attempts();
    const { call, copies } = hedge(attempt, { budget });
    await Bun.sleep(AFTER_MS * 4);
    // The call itself earned one copy; after that, none.
    expect(copies()).toBe(1);
    expect(sent).toHaveLength(2);
    sent[1]!.answer("the copy it could pay for");
    expect(await call).toBe("the copy it could pay for");
  });
});

describe("HedgeBudget", () => {
  test("a burst of copies, then one per call made", () => {
    const budget = new HedgeBudget();
    let taken = 0;
    while (budget.take()) taken++;
    expect(taken).toBe(HEDGE_BURST);
    budget.earn();
    budget.earn();
    expect(budget.take()).toBe(true);
    expect(budget.take()).toBe(true);
    expect(budget.take()).toBe(false);
  });

  test("what is saved never exceeds the burst", () => {
    const budget = new HedgeBudget();
    for (let i = 0; i < HEDGE_BURST * 3; i++) budget.earn();
    let taken = 0;
    while (budget.take()) taken++;
    expect(taken).toBe(HEDGE_BURST);
  });
});
