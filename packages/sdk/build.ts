/**
 * Builds the installable package into dist/: one ES module for Node ≥ 20 and Bun, and the type
 * declarations. The contracts are imported for their types only, so nothing of them reaches the
 * JavaScript; their declarations are shipped beside ours (they describe Payment, Payout and the
 * rest with zod's types, hence zod as the package's dependency) and the bare `@payaccept/contracts`
 * import, which exists only inside the workspace, is rewritten to point at them.
 */
import { existsSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { join, relative } from "node:path";

const root = import.meta.dir;
const dist = join(root, "dist");
const types = join(dist, "types");

await rm(dist, { recursive: true, force: true });

const js = await Bun.build({ entrypoints: [join(root, "src/index.ts")], outdir: dist, target: "node", format: "esm", packages: "external" });
if (!js.success) throw new AggregateError(js.logs, "bun build failed");

// Single-threaded: on a loaded machine TypeScript 7's parallel emit once exited 0 having written
// only some of the contracts' declarations (an installed package then lacked its types).
const tsc = Bun.spawnSync([join(root, "../../node_modules/.bin/tsc"), "--singleThreaded", "-p", join(root, "tsconfig.build.json")], { stdout: "inherit", stderr: "inherit" });
if (tsc.exitCode !== 0) throw new Error(`tsc exited with ${tsc.exitCode}`);

const contractsEntry = join(types, "contracts/src/index.js");
for (const entry of await readdir(types, { recursive: true })) {
  if (!entry.endsWith(".d.ts")) continue;
  const file = join(types, entry);
  const text = await Bun.file(file).text();
  let toContracts = relative(join(file, ".."), contractsEntry);
  if (!toContracts.startsWith(".")) toContracts = `./${toContracts}`;
  const rewritten = text
    // Relative specifiers keep the sources' .ts ending in declarations; installed, they name .js files.
    .replace(/(from\s+["']\.{1,2}\/[^"']*)\.ts(["'])/g, "$1.js$2")
    .replace(/(from\s+["'])@payaccept\/contracts(["'])/g, `$1${toContracts}$2`);
  if (rewritten !== text) await Bun.write(file, rewritten);
}

// Every declaration another one imports was written, or the package is not built.
for (const entry of await readdir(types, { recursive: true })) {
  if (!entry.endsWith(".d.ts")) continue;
  const file = join(types, entry);
  for (const [, specifier] of (await Bun.file(file).text()).matchAll(/from\s+["'](\.{1,2}\/[^"']*)\.js["']/g)) {
    const imported = join(file, "..", `${specifier}.d.ts`);
    if (!existsSync(imported)) throw new Error(`${relative(types, file)} imports ${relative(types, imported)}, which tsc did not write`);
  }
}
