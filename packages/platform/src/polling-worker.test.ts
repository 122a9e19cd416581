import { expect, test } from "bun:test";
import { PollingWorker, type RoundResult } from "./polling-worker.ts";

/** Waits (bounded) until `ok()` holds. */
async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await Bun.sleep(10);
  expect(ok()).toBe(true);
}

// idleMs is far beyond every wait below: a round that runs again came from "more", a due time or a wake.
const IDLE_MS = 60_000;
const worker = (round: () => Promise<RoundResult>, errors: unknown[] = []) => new PollingWorker(round, { idleMs: IDLE_MS, now: Date.now }, (e) => errors.push(e));

test("a full batch runs the next round at once; a due time wakes it then; nothing due sleeps until woken", async () => {
  const results: RoundResult[] = ["more", "more", Date.now() + 20, null];
  let rounds = 0;
  const w = worker(async () => results[rounds++] ?? null);
  w.start();
  await until(() => rounds === 4);
  await Bun.sleep(50);
  expect(rounds).toBe(4);
  w.wake();
  await until(() => rounds === 5);
  await w.stop();
});

test("a wake while a round runs makes the next round run without sleeping", async () => {
  let rounds = 0;
  let release!: () => void;
  const w = worker(async () => {
    rounds++;
    if (rounds === 1) await new Promise<void>((r) => (release = r));
    return null;
  });
  w.start();
  await until(() => rounds === 1);
  w.wake();
  release();
  await until(() => rounds === 2);
  await Bun.sleep(50);
  expect(rounds).toBe(2);
  await w.stop();
});

test("a round that throws is reported and the worker carries on", async () => {
  const errors: unknown[] = [];
  let rounds = 0;
  const w = worker(async () => {
    rounds++;
    if (rounds === 1) throw new Error("store away");
    return null;
  }, errors);
  w.start();
  await until(() => errors.length === 1);
  expect((errors[0] as Error).message).toBe("store away");
  w.wake();
  await until(() => rounds === 2);
  await w.stop();
});

test("stop() waits for the running round, and none runs after it", async () => {
  let rounds = 0;
  let finished = false;
  let release!: () => void;
  const w = worker(async () => {
    rounds++;
    await new Promise<void>((r) => (release = r));
    finished = true;
    return "more";
  });
  w.start();
  await until(() => rounds === 1);
  const stopping = w.stop();
  release();
  await stopping;
  expect(finished).toBe(true);
  expect(rounds).toBe(1);
});

test("a round due again at once still lets the event loop turn: the I/O its rows wait on is never starved", async () => {
  // The round finds its due row in flight and answers its due time, already past, as the acquirer
  // emulator's dispatcher does while a buyer's callback is on its way.
  let rounds = 0;
  let landed = false;
  const w = worker(async () => {
    rounds++;
    return landed || rounds > 100_000 ? null : Date.now() - 1;
  });
  w.start();
  await Bun.sleep(5);
  landed = true;
  await until(() => rounds > 0);
  await w.stop();
  expect(rounds).toBeLessThan(100_000);
});
