import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findNatsServer } from "../infra/launcher/nats-server.ts";
import { ROOT } from "../infra/launcher/services.ts";

/** nats-server -t parses a config (includes and variables too) without starting a server. */
const NATS = join(ROOT, "infra/nats");

function check(config: string, env: Record<string, string> = {}) {
  const proc = Bun.spawnSync([findNatsServer(), "-t", "-c", join(NATS, config)], { env, stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode, output: proc.stdout.toString() + proc.stderr.toString() };
}

const nodeEnv = {
  NATS_LISTEN: "127.0.0.1:4222",
  NATS_HTTP: "127.0.0.1:8222",
  NATS_CLUSTER_LISTEN: "127.0.0.1:6222",
  NATS_STORE_DIR: "/tmp/js",
  NATS_ROUTE_1: "nats-route://127.0.0.1:6222",
  NATS_ROUTE_2: "nats-route://127.0.0.1:6223",
  NATS_ROUTE_3: "nats-route://127.0.0.1:6224",
};

describe("NATS configs", () => {
  test("the single-node config is valid and enables JetStream", () => {
    const r = check("single.conf");
    expect(r.output).toContain("is valid");
    expect(r.code).toBe(0);
    expect(readFileSync(join(NATS, "single.conf"), "utf8")).toMatch(/^jetstream\s*\{/m);
  });

  test.each(["n1", "n2", "n3"])("cluster node %s is valid with its addresses from the environment", (node) => {
    const r = check(`cluster/${node}.conf`, nodeEnv);
    expect(r.output).toContain("is valid");
    expect(r.code).toBe(0);
  });

  test("a cluster node does not start on guessed addresses", () => {
    const r = check("cluster/n1.conf");
    expect(r.code).not.toBe(0);
    expect(r.output).toContain("NATS_LISTEN");
  });

  test("the nodes have distinct names and share one cluster definition", () => {
    const names = ["n1", "n2", "n3"].map((n) => {
      const text = readFileSync(join(NATS, `cluster/${n}.conf`), "utf8");
      expect(text).toContain("include ./node.conf");
      return /^server_name:\s*(\S+)/m.exec(text)?.[1];
    });
    expect(new Set(names).size).toBe(3);
    expect(readFileSync(join(NATS, "cluster/node.conf"), "utf8")).toMatch(/routes:\s*\[\$NATS_ROUTE_1, \$NATS_ROUTE_2, \$NATS_ROUTE_3\]/);
  });
});
