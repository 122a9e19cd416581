import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { DomainError, rpcs } from "@payaccept/contracts";
import { ROOT } from "../infra/launcher/services.ts";
import { apiKeyIn, DashboardClient, text, uniqueEmail } from "./dashboard-client.ts";
import { ENGINES } from "./harness/engines.ts";
import { Stack, TEST_CSRF_SECRET, STACK_START_MS } from "./harness/stack.ts";
import { Rotation } from "./replica-fixtures.ts";

// Real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(90_000);

/**
 * Two dashboard replicas behind a round robin (docs/dashboard.md, "Replicas"): one person's
 * consecutive requests alternate between them, so every redirect is served by the replica that did
 * not handle the POST, and every form is posted to the one that did not render it. On SQLite the
 * replicas share the file (one host); on PostgreSQL they share nothing but the database.
 */
describe.each(ENGINES)("two dashboard replicas on %s", (engine) => {
  let stack: Stack;
  let rotation: Rotation;
  beforeAll(async () => {
    stack = await Stack.start({
      services: ["directory", "dashboard"],
      env: { TRUSTED_PROXIES: "127.0.0.1", DASHBOARD_REPLICAS: "2", DASHBOARD_CSRF_SECRET: TEST_CSRF_SECRET },
      postgres: engine === "postgres",
    });
    const second = await stack.addReplica("dashboard");
    rotation = new Rotation([stack.url("dashboard"), second.url]);
  }, STACK_START_MS);
  afterAll(() => stack?.stop());

  const person = (address?: string) => new DashboardClient(stack.url("dashboard"), address, rotation.fetch);

  test("a form rendered by one replica is accepted by the other; a new key is shown once, on the redirect the other serves", async () => {
    const owner = person();
    // GET /signup on one replica, POST on the other: the CSRF key is shared.
    const signedUp = await owner.signUp(uniqueEmail("replicas"));
    expect(signedUp.status).toBe(303);
    expect((await owner.follow(signedUp)).status).toBe(200);

    const { shopId, apiKey } = await owner.createShop("Two replicas");
    expect(apiKey).toMatch(/^pk_test_/);
    const again = await owner.get(`/shops/${shopId}`);
    expect(again.status).toBe(200);
    expect(apiKeyIn(again.html)).toBeUndefined();

    // A rotation's key is shown once too, whichever replica took the POST.
    const rotated = await owner.submit(`/shops/${shopId}`, `/shops/${shopId}/key`);
    expect(rotated.status).toBe(303);
    const shown = apiKeyIn((await owner.follow(rotated)).html);
    expect(shown).toMatch(/^pk_test_/);
    expect(shown).not.toBe(apiKey);
    expect(apiKeyIn((await owner.get(`/shops/${shopId}`)).html)).toBeUndefined();
  });

  test("sign-in throttling holds across replicas, for sequences and for bursts", async () => {
    const email = uniqueEmail("guessed");
    await person().signUp(email);
    const guesser = person("203.0.113.50");
    for (let i = 0; i < 5; i++) expect((await guesser.signIn(email, `guess number ${i}`)).status).toBe(401);
    // The right password, on either replica, from another address: the email is locked.
    for (const owner of [person("203.0.113.51"), person("203.0.113.52")]) {
      const locked = await owner.signIn(email);
      expect(locked.status).toBe(429);
      expect(text(locked.html)).toContain("Слишком много неудачных попыток");
    }

    const burst = uniqueEmail("burst");
    await person().signUp(burst);
    const clients = Array.from({ length: 10 }, () => person("203.0.113.60"));
    await Promise.all(clients.map((c) => c.get("/login")));
    const answers = await Promise.all(clients.map((c, i) => c.post("/login", { email: burst, password: `parallel guess ${i}` })));
    expect(answers.map((a) => a.status).sort()).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
  });

  test("the admin CLI works whichever replica answers; an account's first owner is kept one by the database", async () => {
    const email = uniqueEmail("operator");
    const created = await stack.admin(["user:create-operator", "--email", email, "--password", "operator password 1", "--json"]);
    expect(created.code).toBe(0);
    const operator = person();
    expect((await operator.signIn(email, "operator password 1")).location).toBe("/ops/shops");

    // Six at once over the queue group: both replicas take some, one team with one owner is made.
    // Six argon2id hashes at once on a busy machine take a while: the bound is a liveness one.
    const shop = await stack.createShop({ name: "One owner", sandbox: true });
    const made = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        stack
          .call(rpcs.dashboard.createMerchant, { email: uniqueEmail(`merchant${i}`), password: "long enough password", accountId: shop.accountId }, 30_000)
          .catch((e: DomainError) => e),
      ),
    );
    expect(made.filter((m) => !(m instanceof DomainError))).toHaveLength(1);
    expect(made.filter((m) => m instanceof DomainError).map((e) => (e as DomainError).code)).toEqual(Array(5).fill("CONFLICT"));
  });
});

describe("a replicated dashboard without DASHBOARD_CSRF_SECRET", () => {
  const { DASHBOARD_CSRF_SECRET: _unset, ...inherited } = process.env;
  const start = async (env: Record<string, string>) => {
    const proc = Bun.spawn(["bun", join(ROOT, "services/dashboard/src/main.ts")], {
      env: { ...inherited, NATS_URL: "nats://127.0.0.1:1", ...env },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    return { code, stderr };
  };

  test("refuses to start with DASHBOARD_REPLICAS above 1, naming the variable", async () => {
    const { code, stderr } = await start({ DASHBOARD_REPLICAS: "2" });
    expect(code).toBe(78);
    expect(stderr).toContain("DASHBOARD_CSRF_SECRET: required when the dashboard is replicated (DASHBOARD_REPLICAS=2)");
  });

  test("refuses to start on a PostgreSQL store, before connecting to it", async () => {
    const { code, stderr } = await start({ DASHBOARD_DATABASE_URL: "postgres://app:secret@127.0.0.1:1/payaccept" });
    expect(code).toBe(78);
    expect(stderr).toContain("DASHBOARD_CSRF_SECRET: required when the dashboard is replicated (DASHBOARD_DATABASE_URL is set)");
    expect(stderr).not.toContain("secret@");
  });
});
