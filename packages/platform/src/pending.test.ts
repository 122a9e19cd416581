import { describe, expect, test } from "bun:test";
import { warnWhilePending, withoutCredentials } from "./pending.ts";

describe("warnWhilePending", () => {
  test("warns after the first delay and again while still pending, never after it settles", async () => {
    const warned: number[] = [];
    let connect!: (v: string) => void;
    const connecting = new Promise<string>((r) => (connect = r));
    const waited = warnWhilePending(connecting, { firstMs: 5, everyMs: 5 }, (ms) => {
      warned.push(ms);
      if (warned.length === 2) connect("up");
    });
    expect(await waited).toBe("up");
    expect(warned).toHaveLength(2);
    expect(warned[1]!).toBeGreaterThan(warned[0]!);
    await Bun.sleep(30);
    expect(warned).toHaveLength(2);
  });

  test("a quick success warns nothing; a failure is passed on", async () => {
    const warned: number[] = [];
    expect(await warnWhilePending(Promise.resolve(1), { firstMs: 10, everyMs: 10 }, (ms) => warned.push(ms))).toBe(1);
    await expect(warnWhilePending(Promise.reject(new Error("no")), { firstMs: 10, everyMs: 10 }, () => warned.push(0))).rejects.toThrow("no");
    await Bun.sleep(30);
    expect(warned).toEqual([]);
  });
});

test("withoutCredentials strips user, password and token from every server", () => {
  expect(withoutCredentials("nats://u:p@10.0.0.1:4222,nats://tok@h2:4222, h3:4222")).toBe("nats://10.0.0.1:4222,nats://h2:4222,h3:4222");
  expect(withoutCredentials("nats://127.0.0.1:4222")).toBe("nats://127.0.0.1:4222");
});
