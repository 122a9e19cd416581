import { expect, test } from "bun:test";
import { KeyedQueue } from "./keyed-queue.ts";

test("tasks sharing a key run one after another; others run alongside", async () => {
  const queue = new KeyedQueue();
  const events: string[] = [];
  let openFirst!: () => void;
  const firstMayEnd = new Promise<void>((r) => (openFirst = r));
  const first = queue.run(["email:a", "ip:1"], async () => {
    events.push("first start");
    await firstMayEnd;
    events.push("first end");
  });
  const sameAddress = queue.run(["email:b", "ip:1"], async () => void events.push("same address"));
  const unrelated = queue.run(["email:c", "ip:2"], async () => void events.push("unrelated"));
  await unrelated;
  expect(events).toEqual(["first start", "unrelated"]);
  openFirst();
  await Promise.all([first, sameAddress]);
  expect(events).toEqual(["first start", "unrelated", "first end", "same address"]);
});

test("a failing task releases its keys", async () => {
  const queue = new KeyedQueue();
  await expect(queue.run(["k"], async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  expect(await queue.run(["k"], async () => "next")).toBe("next");
});
