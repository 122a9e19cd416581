import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { freePort } from "./ports.ts";

/**
 * A throwaway PostgreSQL server: `url` connects as the superuser `app` to the `postgres` database.
 * `down()` shuts the server down (fast: its sessions are terminated) keeping its data, `up()`
 * starts it again on the same port, `restart()` is both, as an operator's restart or a failover.
 */
export type Postgres = {
  url: string;
  port: number;
  dir: string;
  down: () => void;
  up: () => void;
  restart: () => void;
  /** SIGKILL to the server and every one of its processes at once: its host lost, nothing written on the way down. */
  kill: () => void;
  /** pg_ctl promote: a standby becomes a primary (waits until it takes writes). */
  promote: () => void;
  stop: () => Promise<void>;
};

/** Where Debian puts the server binaries: /usr/lib/postgresql/<major>/bin, the newest major if several. */
export function findPostgresBin(): string {
  const root = "/usr/lib/postgresql";
  const majors = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))) : [];
  const newest = majors.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error("PostgreSQL server binaries not found under /usr/lib/postgresql: run `bash infra/scripts/bootstrap.sh --test` (apt-get install postgresql)");
  return join(root, newest, "bin");
}

/** The server refuses to run as root: as root, every server command runs as the `postgres` user. */
function asServerUser(): { prefix: string[]; chown: (path: string) => void } {
  if (process.getuid?.() !== 0) return { prefix: [], chown: () => {} };
  const id = (flag: string) => Number(Bun.spawnSync(["id", flag, "postgres"]).stdout.toString().trim());
  const [uid, gid] = [id("-u"), id("-g")];
  return { prefix: ["runuser", "-u", "postgres", "--"], chown: (path) => chownSync(path, uid, gid) };
}

function run(cmd: string[], what: string): void {
  const proc = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`${what} failed (${proc.exitCode}): ${proc.stderr.toString()}${proc.stdout.toString()}`);
}

/**
 * A throwaway server never survives its host: nothing waits for the disk. A server stopped or
 * restarted by pg_ctl (down, up, restart: an operator's restart or a failover) still writes
 * everything out on the way down, so what the tests check of a restart holds.
 */
const THROWAWAY = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off";

/**
 * A primary as docs/operations-database.md runs one: a commit is answered once the standby named
 * `standby` has its WAL (`synchronous_commit=on` with `synchronous_standby_names`), so a commit
 * answered before the primary is lost is on the standby. In postgresql.conf, not on the command
 * line: the runbook's `ALTER SYSTEM` must be able to change them (a command-line setting wins over
 * postgresql.auto.conf). No fsync: the tests kill processes, not hosts, so what a process wrote
 * is in the OS's cache either way.
 */
const SYNCHRONOUS_PRIMARY = ["synchronous_commit = on", "synchronous_standby_names = 'standby'"];
const NO_FSYNC = "-c fsync=off -c full_page_writes=off";

/**
 * An initdb'd cluster to copy, made once per machine and server version: initdb costs 1.3 CPU-s,
 * a copy a tenth of that, and the suite starts a PostgreSQL per file and engine. Made aside and
 * renamed into place, so that parallel files never copy a half-made one.
 */
function clusterTemplate(bin: string, user: ReturnType<typeof asServerUser>): string {
  const template = join(tmpdir(), `payaccept-pg-template-${bin.split("/").at(-2)}`);
  if (existsSync(template)) return template;
  const making = mkdtempSync(`${template}-making-`);
  user.chown(making);
  run([...user.prefix, join(bin, "initdb"), "-D", join(making, "db"), "-U", "app", "--auth=trust", "--no-sync", "-E", "UTF8"], "initdb");
  try {
    renameSync(making, template);
  } catch {
    // Another file made it first.
    rmSync(making, { recursive: true, force: true });
  }
  return template;
}

/**
 * A copy of the initdb'd template in a fresh temporary folder, then pg_ctl start on a free
 * loopback port (its socket in the same folder, so nothing outside it is touched); resolves once the server accepts
 * connections. stop() shuts it down fast and removes the folder (once; again does nothing).
 */
export async function startPostgres(
  opts: { settings?: string; conf?: string[]; from?: (db: string, user: ReturnType<typeof asServerUser>, bin: string) => void } = {},
): Promise<Postgres> {
  const bin = findPostgresBin();
  const user = asServerUser();
  const dir = mkdtempSync(join(tmpdir(), "payaccept-pg-"));
  user.chown(dir);
  const db = join(dir, "db");
  const port = await freePort();
  const settings = opts.settings ?? THROWAWAY;
  const pgCtl = (...args: string[]) =>
    run([...user.prefix, join(bin, "pg_ctl"), "-D", db, "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 ${settings}`, "-l", join(dir, "log"), "-m", "fast", "-w", ...args], `pg_ctl ${args.join(" ")}`);
  try {
    if (opts.from) opts.from(db, user, bin);
    else run([...user.prefix, "cp", "-a", join(clusterTemplate(bin, user), "db"), db], "copying the cluster template");
    if (opts.conf) appendFileSync(join(db, "postgresql.conf"), `\n${opts.conf.join("\n")}\n`);
    pgCtl("start");
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  let stopped = false;
  let running = true;
  return {
    url: `postgres://app@127.0.0.1:${port}/postgres`,
    port,
    dir,
    down: () => {
      pgCtl("stop");
      running = false;
    },
    up: () => {
      pgCtl("start");
      running = true;
    },
    restart: () => pgCtl("restart"),
    kill: () => {
      const postmaster = Number(readFileSync(join(db, "postmaster.pid"), "utf8").split("\n")[0]);
      const children = Bun.spawnSync(["pgrep", "-P", String(postmaster)]).stdout.toString().split("\n").filter(Boolean).map(Number);
      for (const pid of [postmaster, ...children]) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Gone already.
        }
      }
      running = false;
    },
    promote: () => pgCtl("promote"),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      if (running) pgCtl("stop");
      if (!process.env.KEEP_TEST_DATA) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A primary and its streaming standby, and the URL that names both as a service is given it in production. */
export type ReplicatedPostgres = { primary: Postgres; standby: Postgres; url: string; stop: () => Promise<void> };

/**
 * Two servers as docs/operations-database.md sets them up: a primary with synchronous commit, and
 * a standby made from it by pg_basebackup (`-R`: it streams from the primary), named `standby`
 * (its cluster_name, which it reports as its application_name), hot standby on. Resolves once
 * the primary reports the standby as its synchronous one. `url` lists both hosts with
 * `target_session_attrs=read-write`.
 */
export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const primary = await startPostgres({ settings: NO_FSYNC, conf: SYNCHRONOUS_PRIMARY });
  let standby: Postgres;
  try {
    standby = await startPostgres({
      settings: `${NO_FSYNC} -c cluster_name=standby -c hot_standby=on`,
      // pg_basebackup copied the primary's postgresql.conf: once promoted, this server has no standby to wait for.
      conf: ["synchronous_standby_names = ''"],
      from: (db, user, bin) =>
        run([...user.prefix, join(bin, "pg_basebackup"), "-h", "127.0.0.1", "-p", String(primary.port), "-U", "app", "-D", db, "-X", "stream", "-R", "--checkpoint=fast", "--no-sync"], "pg_basebackup"),
    });
  } catch (e) {
    await primary.stop();
    throw e;
  }
  const sql = new SQL(primary.url);
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const rows: { sync_state: string }[] = await sql`select sync_state from pg_stat_replication where application_name = 'standby'`;
      if (rows[0]?.sync_state === "sync") break;
      if (Date.now() > deadline) throw new Error(`the standby did not become synchronous: ${JSON.stringify(rows)}`);
      await Bun.sleep(50);
    }
  } catch (e) {
    await Promise.all([standby.stop(), primary.stop()]);
    throw e;
  } finally {
    await sql.close();
  }
  return {
    primary,
    standby,
    url: `postgres://app@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres?target_session_attrs=read-write`,
    stop: async () => {
      await Promise.all([standby.stop(), primary.stop()]);
    },
  };
}
