import { expect, test } from "bun:test";
import { changedSettings } from "./durable.ts";

test("only the updatable settings that differ are changed; identity settings are never touched", () => {
  const current = { ack_wait: 10e9, max_ack_pending: 1000, max_deliver: -1, backoff: [1e9, 2e9], filter_subject: "a.>" };
  expect(changedSettings(current, { ...current })).toEqual({});
  expect(changedSettings(current, { ack_wait: 30e9, max_ack_pending: 1000, filter_subject: "b.>" })).toEqual({ ack_wait: 30e9 });
  expect(changedSettings(current, { backoff: [1e9, 5e9] })).toEqual({ backoff: [1e9, 5e9] });
  expect(changedSettings({ ack_wait: 10e9 }, { max_ack_pending: 50 })).toEqual({ max_ack_pending: 50 });
});
