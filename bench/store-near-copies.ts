/**
 * How many statement lines of each store's PostgreSQL implementation are near copies of its SQLite
 * one: `bun bench/store-near-copies.ts`. Not a benchmark: a count to repeat before and after a
 * change of the stores' shape (docs/conventions.md, "One repository, two engines"); an argument
 * names another checkout to count.
 *
 * The PostgreSQL side: every `services/<name>/src/store/*.pg.ts` but schema.pg.ts. Its SQLite
 * twin: the `*.sqlite.ts` files of the same folder (schema.sqlite.ts aside) and any other non-test
 * module there that imports `./schema.sqlite.ts` (SQLite code kept under another name).
 * A statement line is a line that is not blank, not a comment, not part of an import, not punctuation
 * alone. A line is a near copy when, normalised, it is at least 12 characters long and stands
 * somewhere in the twin's normalised text (its statement lines joined), so a chain written on one
 * line there and over several here still counts. Normalised: a placeholder `ph("x")` or
 * `sql.placeholder("x")` read as `x`; white space, `await`, `async`, `void`, the execution calls
 * `.get()`, `.all()`, `.run()`, `.execute()`, `.prepare(…)`, a `first(` wrapper, brackets, commas
 * and semicolons taken out.
 * Beside it, the statements each engine file still builds itself: its drizzle chains begun
 * (`.select(`, `.insert(`, `.update(`, `.delete(`), which a shared statement leaves to the terms.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = process.argv[2] ?? join(import.meta.dir, "..");
const code = (text: string) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^import\b[^;]*;/gm, "")
    .split("\n")
    .map((line) => line.replace(/(^|\s)\/\/.*$/, "").trim())
    .filter((line) => line !== "" && !/^import\b/.test(line) && !/^[\s(){}[\];,.]*$/.test(line) && !/^}\s*from\s/.test(line));
const normal = (line: string) =>
  line
    .replace(/\b(?:ph|sql\.placeholder)\("(\w+)"\)/g, "$1")
    .replace(/\.prepare\([^)]*\)/g, "")
    .replace(/\b(await|async|void)\b/g, "")
    .replace(/\.(get|all|run|execute)\(\)/g, "")
    .replace(/\bfirst\(/g, "")
    .replace(/[\s(){}[\];,]/g, "");

const chains = (text: string) => (text.match(/\.(select|insert|update|delete)\(/g) ?? []).length;
let total = 0;
let copies = 0;
let built = { pg: 0, sqlite: 0 };
for (const service of readdirSync(join(root, "services")).sort()) {
  const dir = join(root, "services", service, "src", "store");
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.startsWith("schema."));
  } catch {
    continue;
  }
  const read = (f: string) => readFileSync(join(dir, f), "utf8");
  const sqlite = files.filter((f) => f.endsWith(".sqlite.ts") || (!f.endsWith(".pg.ts") && /from "\.\/schema\.sqlite\.ts"/.test(read(f))));
  const twin = sqlite.flatMap((f) => code(read(f)).map(normal)).join("");
  for (const f of files.filter((f) => f.endsWith(".pg.ts"))) {
    const lines = code(read(f));
    const near = lines.filter((line) => normal(line).length >= 12 && twin.includes(normal(line)));
    const own = { pg: chains(read(f)), sqlite: sqlite.reduce((n, t) => n + chains(read(t)), 0) };
    total += lines.length;
    copies += near.length;
    built = { pg: built.pg + own.pg, sqlite: built.sqlite + own.sqlite };
    console.log(`${service}/${f}: ${near.length} of ${lines.length} statement lines near copies of ${sqlite.join(", ") || "(no SQLite twin)"}; chains built in the engine files: ${own.pg} PostgreSQL, ${own.sqlite} SQLite`);
  }
}
console.log(`all: ${copies} of ${total} near copies; chains built in the engine files: ${built.pg} PostgreSQL, ${built.sqlite} SQLite`);
