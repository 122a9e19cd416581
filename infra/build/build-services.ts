/**
 * `bun run build:services`: compiles every service and the admin CLI into one executable with
 * bytecode, `.build/payaccept` (infra/build/entry.ts). Rebuilt only when a source, the lockfile or
 * Bun itself changed since the last build (its stamp beside it). The launcher and the tests run it
 * when SERVICES_EXECUTABLE names it (README, "Configuration").
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import type { BunPlugin } from "bun";
import { ROOT } from "../launcher/services.ts";

export const EXECUTABLE = join(ROOT, ".build", "payaccept");
const STAMP = `${EXECUTABLE}.stamp`;
const SOURCES = new Bun.Glob("{services,packages,infra}/**/*.{ts,tsx,json,patch}");

/** A hash of everything the executable is made of. */
async function sourceStamp(): Promise<string> {
  const files = [...SOURCES.scanSync({ cwd: ROOT })].filter((f) => !f.split(sep).includes("node_modules")).sort();
  files.push("bun.lock", "package.json");
  const hasher = new Bun.CryptoHasher("sha256").update(Bun.version);
  for (const f of files) hasher.update(f).update(await Bun.file(join(ROOT, f)).bytes());
  return hasher.digest("hex");
}

/**
 * A compiled module's import.meta.dir is the executable's virtual root; the services find their
 * migrations, stylesheets and client scripts beside their sources, so each of our modules gets the
 * folder it was compiled from written in.
 */
const sourceDirs: BunPlugin = {
  name: "source-dirs",
  setup(build) {
    const ours = new RegExp(`^${ROOT.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/(services|packages|infra)/.*\\.tsx?$`);
    build.onLoad({ filter: ours }, async ({ path }) => ({
      contents: (await Bun.file(path).text()).replaceAll("import.meta.dir", JSON.stringify(dirname(path))),
      loader: path.endsWith(".tsx") ? "tsx" : "ts",
    }));
  },
};

export async function buildServices(): Promise<{ built: boolean; ms: number }> {
  const started = performance.now();
  const stamp = await sourceStamp();
  if (existsSync(EXECUTABLE) && existsSync(STAMP) && readFileSync(STAMP, "utf8") === stamp) return { built: false, ms: performance.now() - started };
  mkdirSync(dirname(EXECUTABLE), { recursive: true });
  const result = await Bun.build({
    entrypoints: [join(ROOT, "infra/build/entry.ts")],
    compile: { outfile: EXECUTABLE },
    bytecode: true,
    format: "esm",
    target: "bun",
    plugins: [sourceDirs],
  });
  if (!result.success) throw new AggregateError(result.logs, "the services' executable did not build");
  writeFileSync(STAMP, stamp);
  return { built: true, ms: performance.now() - started };
}

if (import.meta.main) {
  const { built, ms } = await buildServices();
  console.error(`[build] ${EXECUTABLE} ${built ? "built" : "up to date"} in ${Math.round(ms)} ms`);
}
