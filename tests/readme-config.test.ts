import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Glob } from "bun";
import { commonEnv, databaseEnv } from "@payaccept/platform";
import { ROOT } from "../infra/launcher/services.ts";

/** Variables a service's config schema declares: the keys of its zod shape, written in capitals. */
function declaredVariables(): Set<string> {
  const names = new Set(Object.keys(commonEnv));
  for (const file of new Glob("services/*/src/config.ts").scanSync(ROOT)) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const m of text.matchAll(/^\s+([A-Z][A-Z0-9_]{2,}):/gm)) names.add(m[1]!);
    // A service with rows spreads databaseEnv("<SERVICE>"): its own URL and pool, and the shared timeouts.
    for (const m of text.matchAll(/databaseEnv\("([A-Z]+)"\)/g)) for (const name of Object.keys(databaseEnv(m[1]!))) names.add(name);
  }
  // Payments spreads each connector's own variables (services/payments/src/connectors/<name>/index.ts).
  for (const file of new Glob("services/payments/src/connectors/*/index.ts").scanSync(ROOT)) {
    for (const m of readFileSync(join(ROOT, file), "utf8").matchAll(/^\s+([A-Z][A-Z0-9_]{2,}):/gm)) names.add(m[1]!);
  }
  return names;
}

test("every variable a service reads is in the README's configuration table", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const missing = [...declaredVariables()].filter((name) => !readme.includes(`| \`${name}\` |`));
  expect(missing).toEqual([]);
  expect(declaredVariables().size).toBeGreaterThan(40);
});
