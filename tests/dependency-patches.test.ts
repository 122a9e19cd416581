import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { headers, Match, MsgHdrsImpl } from "@nats-io/nats-core/internal";
import { ROOT } from "../infra/launcher/services.ts";

/**
 * The patches under infra/patches are applied by `bun install` (patchedDependencies). Every line
 * a patch adds must be in the installed package: a dependency that moved to a version the patch
 * was not made for, or an install that skipped it, would otherwise go unnoticed.
 */
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { patchedDependencies?: Record<string, string> };
const patches = Object.entries(manifest.patchedDependencies ?? {});

test("there is a patch to check", () => {
  expect(patches.length).toBeGreaterThan(0);
});

for (const [dependency, patchFile] of patches) {
  test(`${dependency}: every line of ${patchFile} is installed`, () => {
    const name = dependency.slice(0, dependency.lastIndexOf("@"));
    const version = dependency.slice(dependency.lastIndexOf("@") + 1);
    const installed = join(ROOT, "node_modules", name);
    expect((JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { version: string }).version).toBe(version);
    const missing: string[] = [];
    for (const section of readFileSync(join(ROOT, patchFile), "utf8").split(/^diff --git /m).slice(1)) {
      const file = /^\+\+\+ b\/(.+)$/m.exec(section)![1]!;
      const text = readFileSync(join(installed, file), "utf8");
      const added = section
        .split("\n")
        .filter((l) => l.startsWith("+") && !l.startsWith("+++"))
        .map((l) => l.slice(1));
      for (const line of added) if (!text.includes(line)) missing.push(`${file}: ${line.trim()}`);
    }
    expect(missing).toEqual([]);
  });
}

test("@nats-io/nats-core's headers behave as unpatched: exact and case-insensitive look-ups, set replacing, invalid names refused every time", () => {
  const h = headers();
  h.set("Payaccept-Deadline", "1");
  h.append("Payaccept-Deadline", "2");
  h.set("x-request-id", "r");
  expect(h.get("Payaccept-Deadline")).toBe("1");
  expect(h.values("Payaccept-Deadline")).toEqual(["1", "2"]);
  expect(h.get("payaccept-deadline")).toBe(""); // exact by default
  expect(h.get("PAYACCEPT-DEADLINE", Match.IgnoreCase)).toBe("1");
  expect(h.has("X-Request-Id", Match.CanonicalMIME)).toBe(false); // stored as given: "x-request-id"
  h.set("Payaccept-Deadline", "3");
  expect(h.values("Payaccept-Deadline")).toEqual(["3"]);
  h.delete("x-request-id");
  expect(h.has("x-request-id")).toBe(false);
  // A name is checked on every use, not only the first time (the patch remembers valid names only).
  for (let i = 0; i < 2; i++) expect(() => h.set("bad name", "v")).toThrow();
  // What travels: the encoding a decoder reads back.
  const back = MsgHdrsImpl.decode((h as MsgHdrsImpl).encode());
  expect(back.values("Payaccept-Deadline")).toEqual(["3"]);
});
