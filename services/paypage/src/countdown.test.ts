import { expect, test } from "bun:test";
import { formatRemaining } from "./countdown.ts";

test("twenty minutes count down as mm:ss and stop at zero", () => {
  expect(formatRemaining(20 * 60_000)).toBe("20:00");
  expect(formatRemaining(19 * 60_000 + 59_001)).toBe("20:00");
  expect(formatRemaining(61_000)).toBe("01:01");
  expect(formatRemaining(999)).toBe("00:01");
  expect(formatRemaining(0)).toBe("00:00");
  expect(formatRemaining(-5000)).toBe("00:00");
});
