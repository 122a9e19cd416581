import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { DEFAULT_TARIFF } from "@payaccept/contracts";
import { openPgStore, openStore, type DatabaseChoice, type PgChoice } from "@payaccept/platform";
import { ENGINES, repositoriesPerFile } from "../../../../tests/harness/engines.ts";
import { openDirectoryStore } from "./open-directory-store.ts";
import type { AuditEventRow, ShopRow } from "./schema.ts";

const repos = repositoriesPerFile(openDirectoryStore, "directory.db");

const entry = (id: string, at: number, over: Partial<AuditEventRow> = {}): AuditEventRow => ({
  id,
  at,
  action: "api_key.rolled",
  accountId: "acc-1",
  shopId: "shop-1",
  actorKind: "member",
  actorId: "user-1",
  actorLabel: "owner@example.com",
  actorIp: "203.0.113.9",
  actorUserAgent: "Firefox",
  actorRole: "admin",
  targetType: null,
  targetId: null,
  before: null,
  after: { keyPrefix: "pk_test_abcd" },
  requestId: null,
  recordedAt: at,
  ...over,
});

const shop: ShopRow = {
  id: "shop-1",
  accountId: "acc-1",
  name: "Shop",
  active: true,
  sandbox: true,
  methods: ["SBP", "CARD"],
  tariff: DEFAULT_TARIFF,
  webhookUrl: null,
  signingSecret: "whsec_new",
  successUrl: null,
  failUrl: null,
  receipts: null,
  savedMethodConsent: null,
  connectors: null,
  retiringSecret: "whsec_old",
  retiringSecretExpiresAt: 1_000,
  createdAt: 1,
  updatedAt: 1,
};

const MIGRATIONS = { sqlite: join(import.meta.dir, "../../drizzle"), postgres: join(import.meta.dir, "../../drizzle-pg") };

/** A statement sent straight to the store's database, around the repository: what an operator with its credentials could send. */
async function direct(choice: DatabaseChoice, statement: string): Promise<unknown> {
  if (choice.engine === "sqlite") {
    const { sqlite } = openStore(choice.path, {}, MIGRATIONS.sqlite);
    try {
      return sqlite.run(statement);
    } finally {
      sqlite.close();
    }
  }
  const pg = await openPgStore(choice as PgChoice, {}, MIGRATIONS.postgres);
  try {
    return await pg.db.execute(sql.raw(statement));
  } finally {
    await pg.close();
  }
}

describe.each(ENGINES)("the audit log and the overlaps in the directory's store (%s)", (engine) => {
  test("entries are appended once per id, paged newest first and filtered; the database refuses to change or delete one", async () => {
    const choice = await repos.stores.next(engine, "directory.db");
    const store = repos.track(await openDirectoryStore(choice));
    expect(await store.insertAudit([entry("a", 10), entry("b", 20, { action: "refund.created", actorKind: "apiKey", actorId: "key-1", actorLabel: "pk_test_abcd" })])).toBe(2);
    // A copy (a redelivery, a retry) changes nothing, whatever it says; alone too (the intake's one-entry statement).
    expect(await store.insertAudit([entry("a", 10, { actorLabel: "someone else" }), entry("c", 20, { shopId: "shop-2" })])).toBe(1);
    expect(await store.insertAudit([entry("b", 20, { actorLabel: "someone else" })])).toBe(0);
    const d = entry("d", 5, { accountId: "acc-3", shopId: "shop-3", actorId: "user-3", before: { keyPrefix: "pk_test_old" }, requestId: "req-1" });
    expect(await store.insertAudit([d])).toBe(1);
    expect(await store.auditPage({ accountId: "acc-3", limit: 10 })).toEqual([d]);
    expect((await store.auditPage({ limit: 10 })).map((e) => e.id)).toEqual(["c", "b", "a", "d"]);
    expect(await store.auditPage({ accountId: "acc-1", limit: 10 })).toContainEqual(entry("a", 10));
    const page1 = await store.auditPage({ accountId: "acc-1", limit: 2 });
    expect(page1.map((e) => e.id)).toEqual(["c", "b"]);
    expect((await store.auditPage({ accountId: "acc-1", limit: 2, before: { at: 20, id: "b" } })).map((e) => e.id)).toEqual(["a"]);
    expect((await store.auditPage({ shopId: "shop-1", limit: 10 })).map((e) => e.id)).toEqual(["b", "a"]);
    expect((await store.auditPage({ action: "refund.created", limit: 10 })).map((e) => e.id)).toEqual(["b"]);
    expect((await store.auditPage({ actor: "pk_test_abcd", limit: 10 })).map((e) => e.id)).toEqual(["b"]);
    expect((await store.auditPage({ actor: "user-1", limit: 10 })).map((e) => e.id)).toEqual(["c", "a"]);
    expect((await store.auditPage({ from: 11, to: 20, limit: 10 })).map((e) => e.id)).toEqual(["c", "b"]);
    expect((await store.auditPage({ accountId: "acc-2", limit: 10 })).map((e) => e.id)).toEqual([]);

    await expect(direct(choice, "UPDATE audit_events SET actor_label = 'nobody' WHERE id = 'a'")).rejects.toThrow();
    await expect(direct(choice, "DELETE FROM audit_events WHERE id = 'b'")).rejects.toThrow();
    if (engine === "postgres") await expect(direct(choice, "TRUNCATE audit_events")).rejects.toThrow();
    expect((await store.auditPage({ limit: 10 })).map((e) => [e.id, e.actorLabel])).toEqual([
      ["c", "owner@example.com"],
      ["b", "pk_test_abcd"],
      ["a", "owner@example.com"],
      ["d", "owner@example.com"],
    ]);
  });

  test("a roll with an overlap keeps the old key until its expiry, ending it early or its expiry revokes it once", async () => {
    const [one, two] = await repos.replicas(engine);
    await one.tx(async (t) => {
      await t.insertAccount("acc-1", 1);
      await t.insertShop(shop);
      await t.insertApiKey({ id: "k1", shopId: "shop-1", keyHash: "1".repeat(64), displayPrefix: "pk_test_1111", createdAt: 1, revokedAt: null, expiresAt: null });
    });
    // Rolled with an overlap: the old key gets an expiry, the new one is the live one.
    expect((await one.retireLiveKey("shop-1", 10, 100)).map((k) => [k.id, k.expiresAt, k.revokedAt])).toEqual([["k1", 100, null]]);
    await one.insertApiKey({ id: "k2", shopId: "shop-1", keyHash: "2".repeat(64), displayPrefix: "pk_test_2222", createdAt: 10, revokedAt: null, expiresAt: null });
    expect(await one.liveKeyHint("shop-1")).toEqual({ displayPrefix: "pk_test_2222", createdAt: 10 });
    // Rolled again at once: k2 stops now, k1 keeps its own expiry.
    expect((await one.retireLiveKey("shop-1", 20, null)).map((k) => [k.id, k.revokedAt])).toEqual([["k2", 20]]);
    await one.insertApiKey({ id: "k3", shopId: "shop-1", keyHash: "3".repeat(64), displayPrefix: "pk_test_3333", createdAt: 20, revokedAt: null, expiresAt: null });
    expect((await one.retiringKeys("shop-1")).map((k) => k.id)).toEqual(["k1"]);
    expect((await one.liveKeys()).map((k) => k.id).sort()).toEqual(["k1", "k3"]);
    // Nothing is due before the expiry; at it, two replicas sweeping at once revoke it once, as of its expiry.
    expect(await one.expireKeys(99)).toEqual([]);
    const [a, b] = await Promise.all([one.tx((t) => t.expireKeys(150)), two.tx((t) => t.expireKeys(150))]);
    expect([...a, ...b].map((k) => [k.id, k.revokedAt])).toEqual([["k1", 100]]);
    expect(await one.retiringKeys("shop-1")).toEqual([]);
    // Ending an overlap early: only keys in one, and only once.
    await one.retireLiveKey("shop-1", 200, 900);
    expect((await one.endKeyOverlap("shop-1", undefined, 210)).map((k) => [k.id, k.revokedAt])).toEqual([["k3", 210]]);
    expect(await one.endKeyOverlap("shop-1", undefined, 220)).toEqual([]);
  });

  test("a retiring secret is due once its overlap ran out", async () => {
    const store = await repos.open(engine);
    await store.tx(async (t) => {
      await t.insertAccount("acc-1", 1);
      await t.insertShop(shop);
    });
    expect(await store.shopsWithExpiredSecret(999)).toEqual([]);
    expect((await store.tx((t) => t.shopsWithExpiredSecret(1_000))).map((s) => s.id)).toEqual(["shop-1"]);
  });
});
