import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, SERVICE_NAMES, SERVICES } from "../infra/launcher/services.ts";
import { freePort } from "./harness/stack.ts";

/**
 * The Dockerfile can't be built here (no Docker engine), so it is read: everything it copies
 * from the build context exists, it installs from the lockfile without dev dependencies, and it
 * starts the service's own main. The health probe it runs is executed for real.
 */
const DOCKER = join(ROOT, "infra/docker");
const dockerfile = readFileSync(join(DOCKER, "Dockerfile"), "utf8");
const instructions = dockerfile
  .replace(/\\\n/g, " ")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));

describe("Dockerfile", () => {
  test("everything it copies from the build context exists in the repository", () => {
    const sources = instructions
      .filter((l) => l.startsWith("COPY ") && !l.includes("--from="))
      .flatMap((l) => l.split(/\s+/).slice(1, -1));
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.filter((s) => !existsSync(join(ROOT, s)))).toEqual([]);
  });

  test("installs production dependencies exactly as locked, with the dependency patches in place", () => {
    const install = instructions.indexOf("RUN bun install --production --frozen-lockfile");
    expect(install).toBeGreaterThan(0);
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { patchedDependencies?: Record<string, string> };
    const copiedBefore = instructions.slice(0, install).filter((l) => l.startsWith("COPY ") && !l.includes("--from="));
    for (const patch of Object.values(manifest.patchedDependencies ?? {})) {
      expect(existsSync(join(ROOT, patch))).toBe(true);
      expect(copiedBefore.some((l) => l.split(/\s+/).slice(1, -1).some((src) => patch.startsWith(src)))).toBe(true);
    }
  });

  test("is parametrised by SERVICE and runs that service's src/main.ts as a non-root user", () => {
    expect(instructions).toContain("ARG SERVICE");
    expect(instructions).toContain("WORKDIR /app/services/$SERVICE");
    expect(instructions).toContain("USER bun");
    expect(instructions.at(-1)).toBe('CMD ["bun", "src/main.ts"]');
    for (const name of SERVICE_NAMES) expect(existsSync(join(ROOT, SERVICES[name].dir, "src/main.ts"))).toBe(true);
  });

  test("its ignore file keeps installed modules, databases and git out of the context", () => {
    const ignored = readFileSync(join(DOCKER, "Dockerfile.dockerignore"), "utf8").split("\n");
    for (const p of ["**/node_modules", "**/*.db", ".git", "**/.data"]) expect(ignored).toContain(p);
  });
});

describe("healthcheck.ts", () => {
  const servers: { stop: (force?: boolean) => void }[] = [];
  afterAll(() => servers.forEach((s) => s.stop(true)));

  /** A readiness endpoint answering with the given status; records the paths it was asked for. */
  function readiness(status: number) {
    const paths: string[] = [];
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => (paths.push(new URL(req.url).pathname), Response.json({ status }, { status })),
    });
    servers.push(server);
    return { port: server.port!, paths };
  }

  async function probe(env: Record<string, string>): Promise<number> {
    const proc = Bun.spawn(["bun", join(DOCKER, "healthcheck.ts")], { env: { PATH: process.env.PATH ?? "", ...env }, stdout: "ignore", stderr: "ignore" });
    return proc.exited;
  }

  test("healthy when the service's /readyz answers 200 on the port its variable names", async () => {
    const r = readiness(200);
    expect(await probe({ SERVICE: "payments", PAYMENTS_PORT: String(r.port) })).toBe(0);
    expect(r.paths).toEqual(["/readyz"]);
  });

  test("unhealthy when the service is not ready", async () => {
    const r = readiness(503);
    expect(await probe({ SERVICE: "gateway", GATEWAY_PORT: String(r.port) })).toBe(1);
  });

  test("unhealthy when nothing listens", async () => {
    expect(await probe({ SERVICE: "balance", BALANCE_PORT: String(await freePort()) })).toBe(1);
  });

  test("refuses an unknown SERVICE instead of probing something else", async () => {
    const r = readiness(200);
    expect(await probe({ SERVICE: "toString", GATEWAY_PORT: String(r.port) })).toBe(1);
    expect(r.paths).toEqual([]);
  });
});
