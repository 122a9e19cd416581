import { expect, test } from "bun:test";
import { registry } from "./metrics.ts";

test("a scrape has the process's heap totals but not the heap-space gauges, whose reading walked Bun's whole heap", async () => {
  const text = await registry.metrics();
  expect(text).not.toContain("nodejs_heap_space_size");
  expect(text).toMatch(/^nodejs_heap_size_used_bytes \d+/m);
  expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
});
