import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_TARIFF, rpcs } from "@payaccept/contracts";
import { openStore, randomToken, sha256Hex, sqliteTables } from "@payaccept/platform";
import { issueApiKey } from "../services/directory/src/credentials.ts";
import type { ServiceProcess } from "../infra/launcher/supervisor.ts";
import { DashboardClient, text } from "./dashboard-client.ts";
import { eventually, Stack, STACK_START_MS } from "./harness/stack.ts";

setDefaultTimeout(90_000);

/**
 * A deployment from before the directory was its own service: its shops, keys and accounts are in
 * dashboard.db. The new directory imports them on its first start, the gateway takes the old keys,
 * and the merchant still signs in (the dashboard keeps its users and sessions).
 */
const DASHBOARD_DRIZZLE = join(import.meta.dir, "../services/dashboard/drizzle");
/** The dashboard's migrations as they were before the move (0000_init … 0002_shop_receipts). */
const BEFORE_THE_MOVE = 3;
const RECEIPTS = { required: true, taxation: "usn_income", vat: "none" } as const;
const EMAIL = "legacy@example.com";
const PASSWORD = "legacy password 1";

let stack: Stack;
let scratch: string;
const oldKey = issueApiKey(true);
/** A sign-in made before the upgrade. */
const SESSION = randomToken(32);

/** A dashboard.db written by the dashboard before the move, with one account, shop, key, merchant and session. */
async function legacyDashboardDb(path: string): Promise<void> {
  const migrations = join(scratch, "drizzle");
  cpSync(DASHBOARD_DRIZZLE, migrations, { recursive: true });
  const journalFile = join(migrations, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8"));
  writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, BEFORE_THE_MOVE) }));
  const { sqlite } = openStore(path, {}, migrations);
  const at = Date.UTC(2026, 0, 1);
  sqlite.run("INSERT INTO accounts (id, created_at) VALUES ('acc-legacy', ?)", [at]);
  sqlite.run(
    `INSERT INTO shops (id, account_id, name, active, sandbox, methods, tariff, webhook_url, signing_secret, success_url, fail_url, receipts, created_at, updated_at)
     VALUES ('shop-legacy', 'acc-legacy', 'Legacy shop', 1, 1, '["SBP","CARD"]', ?, NULL, 'legacy-secret', NULL, NULL, ?, ?, ?)`,
    [JSON.stringify(DEFAULT_TARIFF), JSON.stringify(RECEIPTS), at, at],
  );
  sqlite.run("INSERT INTO api_keys (id, shop_id, key_hash, display_prefix, created_at, revoked_at) VALUES ('key-legacy', 'shop-legacy', ?, ?, ?, NULL)", [
    oldKey.keyHash,
    oldKey.displayPrefix,
    at,
  ]);
  sqlite.run("INSERT INTO users (id, account_id, email, password_hash, role, created_at) VALUES ('user-legacy', 'acc-legacy', ?, ?, 'merchant', ?)", [
    EMAIL,
    await Bun.password.hash(PASSWORD, { algorithm: "argon2id" }),
    at,
  ]);
  sqlite.run("INSERT INTO sessions (id_hash, user_id, created_at, expires_at) VALUES (?, 'user-legacy', ?, ?)", [sha256Hex(SESSION), at, Date.now() + 3_600_000]);
  sqlite.close();
}

let directory: ServiceProcess;
beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "directory-import-"));
  stack = await Stack.start({ services: ["gateway"] });
  await legacyDashboardDb(join(stack.dataDir, "dashboard.db"));
  // The new release starts on the old data: the dashboard first (its migration must keep the old tables).
  await stack.addReplica("dashboard");
  directory = await stack.addReplica("directory");
}, STACK_START_MS);
afterAll(async () => {
  await stack?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

test("the directory imports the old shops, keys and accounts on its first start; the old key works", async () => {
  const { shop, key } = await stack.call(rpcs.directory.getShop, { shopId: "shop-legacy", withSecret: true });
  expect(shop).toMatchObject({ accountId: "acc-legacy", name: "Legacy shop", sandbox: true, signingSecret: "legacy-secret", receipts: RECEIPTS });
  expect(key?.displayPrefix).toBe(oldKey.displayPrefix);
  expect((await stack.call(rpcs.directory.getAccount, { accountId: "acc-legacy" })).accountId).toBe("acc-legacy");
  await eventually(async () => (await stack.api(oldKey.apiKey, "/v1/payments", { method: "POST", json: { orderId: "", amountKopecks: 1 } })).status === 400);
});

test("the merchant stays signed in across the upgrade, signs in as before, and sees the shop", async () => {
  const before = new DashboardClient(`http://127.0.0.1:${readyPort("dashboard")}`);
  before.cookies.set("dash_session", SESSION);
  expect(text((await before.get("/shops")).html)).toContain("Legacy shop");
  const merchant = new DashboardClient(`http://127.0.0.1:${readyPort("dashboard")}`);
  const signedIn = await merchant.signIn(EMAIL, PASSWORD);
  expect(signedIn.status).toBe(303);
  expect(text((await merchant.get("/shops")).html)).toContain("Legacy shop");
});

test("a restart imports nothing again: changes made since are kept; a lost store is not refilled from the old snapshot", async () => {
  await stack.call(rpcs.directory.updateShop, { shopId: "shop-legacy", name: "Renamed since" });
  await directory.stop("SIGTERM");
  directory.start();
  await directory.waitReady();
  expect((await stack.call(rpcs.directory.getShop, { shopId: "shop-legacy" })).shop.name).toBe("Renamed since");
  // The restarted process's own log (the file starts afresh with it).
  const log = readFileSync(join(stack.dataDir, "logs", "directory-2.log"), "utf8");
  expect(log).toContain("directory listening");
  expect(log).not.toContain("directory imported");

  // directory.db lost: the old file is marked as imported, so its snapshot (with the key as it was
  // then) does not come back; the shops must come from a backup of directory.db.
  await directory.stop("SIGTERM");
  for (const f of ["directory.db", "directory.db-wal", "directory.db-shm"]) rmSync(join(stack.dataDir, f), { force: true });
  directory.start();
  await directory.waitReady();
  await expect(stack.call(rpcs.directory.getShop, { shopId: "shop-legacy" })).rejects.toMatchObject({ code: "NOT_FOUND" });
});

function readyPort(name: "dashboard", of = stack): number {
  return [...of.replicas.keys()].find((r) => r.name === name)!.port;
}

/**
 * The same deployment moving to PostgreSQL: its hosts keep no files, so the old dashboard.db is
 * named (DIRECTORY_IMPORT_FROM, DASHBOARD_IMPORT_FROM); the directory takes its shops and keys, the
 * dashboard its users and sessions, each once.
 */
describe("moving to PostgreSQL", () => {
  let pgStack: Stack;
  let legacyFile: string;
  beforeAll(async () => {
    legacyFile = join(scratch, "old-dashboard.db");
    await legacyDashboardDb(legacyFile);
    pgStack = await Stack.start({ services: ["gateway"], postgres: true, env: { DIRECTORY_IMPORT_FROM: legacyFile, DASHBOARD_IMPORT_FROM: legacyFile } });
    await pgStack.addReplica("directory");
    await pgStack.addReplica("dashboard");
  }, STACK_START_MS);
  afterAll(() => pgStack?.stop());

  test("shops, keys, users and sessions come over once; the old key works and the merchant stays signed in", async () => {
    const { shop } = await pgStack.call(rpcs.directory.getShop, { shopId: "shop-legacy", withSecret: true });
    expect(shop).toMatchObject({ accountId: "acc-legacy", name: "Legacy shop", sandbox: true, signingSecret: "legacy-secret", receipts: RECEIPTS, methods: ["SBP", "CARD"], active: true });
    await eventually(async () => (await pgStack.api(oldKey.apiKey, "/v1/payments", { method: "POST", json: { orderId: "", amountKopecks: 1 } })).status === 400);

    const before = new DashboardClient(`http://127.0.0.1:${readyPort("dashboard", pgStack)}`);
    before.cookies.set("dash_session", SESSION);
    expect(text((await before.get("/shops")).html)).toContain("Legacy shop");
    const merchant = new DashboardClient(`http://127.0.0.1:${readyPort("dashboard", pgStack)}`);
    expect((await merchant.signIn(EMAIL, PASSWORD)).status).toBe(303);

    const marks = new Database(legacyFile, { readonly: true });
    expect([...sqliteTables(marks, "main")]).toEqual(expect.arrayContaining(["directory_imported", "dashboard_imported"]));
    marks.close();
    await pgStack.call(rpcs.directory.updateShop, { shopId: "shop-legacy", name: "Renamed on PostgreSQL" });
    for (const replica of pgStack.replicas.keys()) {
      await replica.stop("SIGTERM");
      replica.start();
      await replica.waitReady();
    }
    expect((await pgStack.call(rpcs.directory.getShop, { shopId: "shop-legacy" })).shop.name).toBe("Renamed on PostgreSQL");
    for (const replica of pgStack.replicas.keys()) expect(pgStack.replicaLog(replica)).not.toContain("imported");
  });
});
