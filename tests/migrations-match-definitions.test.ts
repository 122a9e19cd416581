import { expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { ROOT } from "../infra/launcher/services.ts";

/**
 * The committed migrations are what a store runs; the table definitions (schema.ts) are what the
 * code reads and writes. They can drift: a column or index defined and never migrated, a migration
 * edited by hand away from its definition. drizzle-kit sees that, so for each service and engine
 * this runs `drizzle-kit generate` from the definitions into a copy of the committed migrations
 * (journal and snapshots included, so only a difference would be written) and fails on any file
 * it writes. The fix is the one the conventions give: generate the migration and commit it.
 */

type Target = { service: string; config: string; dialect: string; schema: string; out: string };

const targets: Target[] = readdirSync(join(ROOT, "services")).flatMap((service) =>
  ["drizzle.config.ts", "drizzle.pg.config.ts"]
    .filter((config) => existsSync(join(ROOT, "services", service, config)))
    .map((config) => ({ service, config, ...(require(join(ROOT, "services", service, config)).default as { dialect: string; schema: string; out: string }) })),
);

/** What drizzle-kit writes for a target's definitions beside a copy of its committed migrations (nothing when they match), with the SQL. */
async function generated(t: Target): Promise<{ written: string[]; sql: string; output: string; code: number | null }> {
  const cwd = join(ROOT, "services", t.service);
  const dir = mkdtempSync(join(tmpdir(), `migrations-${t.service}-`));
  const out = join(dir, "out");
  cpSync(join(cwd, t.out), out, { recursive: true });
  const before = new Set(readdirSync(out, { recursive: true }) as string[]);
  // drizzle-kit reads --out relative to the folder it runs in; stdin closed, so a question it would ask (a rename?) ends the run.
  const proc = Bun.spawn([process.execPath, "x", "drizzle-kit", "generate", "--dialect", t.dialect, "--schema", t.schema, "--out", relative(cwd, out)], {
    cwd,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill(), 60_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  const written = (readdirSync(out, { recursive: true }) as string[]).filter((f) => !before.has(f));
  const sql = written.filter((f) => f.endsWith(".sql")).map((f) => readFileSync(join(out, f), "utf8")).join("\n");
  rmSync(dir, { recursive: true, force: true });
  return { written, sql, output: stdout + stderr, code };
}

test("every service's committed migrations, on both engines, are what drizzle-kit generates from its table definitions", async () => {
  expect(targets.length).toBeGreaterThanOrEqual(12);
  const results: string[] = [];
  // A few at a time: each run is a process loading the schema, on a machine of two cores.
  const queue = [...targets];
  await Promise.all(
    Array.from({ length: 3 }, async () => {
      for (let t = queue.shift(); t; t = queue.shift()) {
        const { written, sql, output, code } = await generated(t);
        if (written.length > 0) results.push(`services/${t.service} (${t.config}): the definitions differ from the migrations by\n${sql}`);
        else if (code !== 0 || !output.includes("No schema changes")) results.push(`services/${t.service} (${t.config}): drizzle-kit exited ${code}\n${output.trim().split("\n").slice(-15).join("\n")}`);
      }
    }),
  );
  expect(results).toEqual([]);
}, 180_000);
