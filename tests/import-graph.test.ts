import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../infra/launcher/services.ts";

/** Every source file of the repository: services, packages, tests, infra and benches. */
const SOURCES = ["services/*/src/**/*.ts", "services/*/src/**/*.tsx", "services/*/test-support/*.ts", "packages/*/src/**/*.ts", "packages/*/src/**/*.tsx", "tests/**/*.ts", "infra/**/*.ts", "bench/**/*.ts"];

/** The import graph's circles that dpdm (dpdm-fast: TypeScript 7 has no compiler API for madge or dpdm) finds from `files`, type-only imports included. */
function circles(cwd: string, files: string[]): { circulars: string[][]; files: number } {
  const out = join(mkdtempSync(join(tmpdir(), "import-graph-")), "graph.json");
  const run = Bun.spawnSync([process.execPath, join(ROOT, "node_modules/dpdm-fast/scripts/dpdm.js"), "--no-tree", "--no-warning", "--no-progress", "-o", out, ...files], { cwd });
  expect(run.exitCode).toBe(0);
  const graph = JSON.parse(readFileSync(out, "utf8")) as { circulars: string[][]; tree: Record<string, unknown> };
  return { circulars: graph.circulars, files: Object.keys(graph.tree).length };
}

test("no module imports itself back through others, type imports included (docs/conventions.md, \"Layout\")", () => {
  const { circulars, files } = circles(ROOT, SOURCES);
  expect(files).toBeGreaterThan(500);
  expect(circulars).toEqual([]);
}, 60_000);

test("the check sees a circle, also one made of type imports", () => {
  const dir = mkdtempSync(join(tmpdir(), "import-circle-"));
  writeFileSync(join(dir, "store.ts"), 'import { openSqlite } from "./store.sqlite.ts";\nexport type Store = { close(): void };\nexport const open = openSqlite;\n');
  writeFileSync(join(dir, "store.sqlite.ts"), 'import type { Store } from "./store.ts";\nexport const openSqlite = (): Store => ({ close() {} });\n');
  expect(circles(dir, ["*.ts"]).circulars.map((circle) => circle.toSorted())).toEqual([["store.sqlite.ts", "store.ts"]]);
}, 60_000);
