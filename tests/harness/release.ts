import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../../infra/launcher/services.ts";

/**
 * The last release's services (docs/upgrades.md): the commit infra/previous-release.json names,
 * exported with `git archive` into a temporary folder (no worktree registered in the repository),
 * its packages installed from the lockfile, its executable built as `npm test` builds ours
 * (infra/build/build-services.ts). Made once per machine and commit (about 2 s and 125 MB) and
 * reused: a folder marked built is taken as it is. Parallel test files wait for the one building.
 */
export type Release = { commit: string; executable: string };

const LOCK_STALE_MS = 10 * 60_000;

function run(cmd: string[], cwd: string, what: string): void {
  const proc = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`${what} failed (${proc.exitCode}): ${proc.stderr.toString()}${proc.stdout.toString()}`);
}

export async function previousRelease(): Promise<Release> {
  const { commit } = JSON.parse(readFileSync(join(ROOT, "infra/previous-release.json"), "utf8")) as { commit: string };
  if (!/^[0-9a-f]{40}$/.test(commit)) throw new Error(`infra/previous-release.json: "${commit}" is not a full commit hash`);
  const dir = join(tmpdir(), `payaccept-release-${commit}`);
  const release = { commit, executable: join(dir, ".build", "payaccept") };
  const built = join(dir, ".release-built");
  if (existsSync(built)) return release;
  const lock = `${dir}.lock`;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (existsSync(built)) return release;
      // A builder that died leaves its lock behind: bounded by the lock's age.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS) rmSync(lock, { recursive: true, force: true });
      await Bun.sleep(250);
    }
  }
  try {
    if (existsSync(built)) return release;
    run(["git", "cat-file", "-e", `${commit}^{commit}`], ROOT, `the previous release ${commit} is not in this clone (a shallow clone? git fetch --unshallow): git cat-file`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    run(["sh", "-c", `git archive ${commit} | tar -x -C '${dir}'`], ROOT, "git archive");
    run([process.execPath, "install", "--frozen-lockfile"], dir, "bun install (previous release)");
    run([process.execPath, "infra/build/build-services.ts"], dir, "building the previous release's services");
    writeFileSync(built, `${commit}\n`);
    return release;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
