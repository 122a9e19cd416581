import { expect, test } from "bun:test";
import { Glob } from "bun";
import { join } from "node:path";

/**
 * No code tells errors apart by their English (docs/errors.md): a reworded message, a zod upgrade
 * or another SQLite version would silently change what a page says or what a service decides.
 * Errors carry reasons and parameters; database errors their SQLite codes. This scans every
 * non-test source file for the ways text matching has been written.
 */
const ROOT = join(import.meta.dir, "..");
const FORBIDDEN: [string, RegExp][] = [
  ["a message's text tested", /\.messages?\??\.(startsWith|endsWith|includes|match|search)\(/],
  ["a regular expression run on a message", /\.(test|exec|match)\([^)]*\b(e|err|error)\.messages?\b/],
  ["a table of patterns translating messages", /\[RegExp, string\]/],
  ["SQLite's message text", /constraint failed|UNIQUE constraint/i],
  ["a service's English parsed", /service unavailable\$?\//],
  ["a failure compared by its text", /(?<!typeof [\w.]*)\b(error|lastError|failureReason)\s*[!=]==?\s*"/],
];

test("no source file matches errors by their text", async () => {
  const offences: string[] = [];
  for (const pattern of ["services/*/src/**/*.{ts,tsx}", "packages/*/src/**/*.{ts,tsx}", "infra/**/*.{ts,tsx}"]) {
    for await (const file of new Glob(pattern).scan({ cwd: ROOT })) {
      if (/\.test\.tsx?$|node_modules/.test(file)) continue;
      const lines = (await Bun.file(join(ROOT, file)).text()).split("\n");
      lines.forEach((line, i) => {
        for (const [what, re] of FORBIDDEN) if (re.test(line)) offences.push(`${file}:${i + 1}: ${what}: ${line.trim()}`);
      });
    }
  }
  expect(offences).toEqual([]);
});
