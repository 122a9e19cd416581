import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
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
