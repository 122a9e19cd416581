import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { adminCommand } from "../infra/launcher/supervisor.ts";

const ROOT = join(import.meta.dir, "..");

/** The CLI with no NATS to reach: help and usage answers must not need the stack. */
async function run(command: string[], args: string[]) {
  const proc = Bun.spawn([...command, ...args], {
    cwd: ROOT,
    env: { ...process.env, NATS_URL: "nats://127.0.0.1:1", LOG_LEVEL: "info" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}
const admin = (...args: string[]) => run(adminCommand(), args);
/** As the README has it: the package script. */
const bunRunAdmin = (...args: string[]) => run(["bun", "run", "--silent", "admin"], args);

const COMMANDS = ["shop:create", "shop:update", "key:rotate", "user:create-merchant", "webhooks:log", "webhooks:replay", "payout:create", "payment:refund", "payment:refunds", "payment:capture", "payment:cancel", "methods:list", "method:revoke", "receipt:resend"];

// Each case is its own process with nothing shared, most of its time spent starting: they run at once.
describe.concurrent("admin CLI help", () => {
  test.each([["help"], ["-h"], ["--help"]])("`%s` prints the full usage on stdout and exits 0", async (flag) => {
    const r = await bunRunAdmin(flag);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toStartWith("usage: bun run admin <command> [flags]");
    for (const name of COMMANDS) expect(r.stdout).toContain(`  ${name} `);
  });

  test("no command at all is a usage mistake: the usage on stderr, exit 2", async () => {
    const r = await admin();
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toStartWith("usage: bun run admin");
  });

  test.each(COMMANDS.flatMap((name) => [[name, "-h"], [name, "--help"]]))("`%s %s` prints that command's usage and exits 0 without NATS", async (name, flag) => {
    const r = await admin(name, flag);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toStartWith(`usage: bun run admin ${name} `);
    expect(r.stdout).toContain("--json");
    // Only this command: no other command's line.
    expect(r.stdout).not.toContain(COMMANDS.find((c) => c !== name)!);
  });

  test("`help <command>` is the same as `<command> --help`; an unknown one is a usage mistake", async () => {
    expect((await admin("help", "payout:create")).stdout).toBe((await admin("payout:create", "--help")).stdout);
    const unknown = await admin("help", "nope");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command: nope");
  });

  test("an unknown command with --json is one JSON error on stdout, exit 2", async () => {
    const r = await admin("shop:explode", "--json");
    expect(r).toMatchObject({ code: 2, stderr: "" });
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: "USAGE", message: "unknown command: shop:explode" } });
  });

  test("a flag given twice is a usage mistake, not the last one silently winning (exit 2, before NATS)", async () => {
    const r = await admin("key:rotate", "--shop", "shop-a", "--shop", "shop-b", "--json");
    expect(r).toMatchObject({ code: 2, stderr: "" });
    expect(JSON.parse(r.stdout)).toEqual({ error: { code: "USAGE", message: "--shop is given twice" } });
    const plain = await admin("payout:create", "--account", "a", "--amount", "100", "--amount", "1000000");
    expect(plain.code).toBe(2);
    expect(plain.stderr).toStartWith("--amount is given twice\n");
  });

  test("NATS unreachable with --json: one JSON error on stdout, exit 1, while the bus's warning is logged on stderr", async () => {
    const r = await admin("balance:get", "--account", "a", "--json");
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: "FAILED", message: expect.stringContaining("cannot reach NATS") });
    const logged = r.stderr.trim().split("\n").map((line) => JSON.parse(line));
    expect(logged).toContainEqual(expect.objectContaining({ level: 40, service: "admin", msg: "NATS not reachable yet; still trying" }));
  });
});
