import { afterEach, describe, expect, test } from "bun:test";
import { DEFAULT_TARIFF } from "@payaccept/contracts";
import { ENGINES, storesPerFile } from "../../../../tests/harness/engines.ts";
import { openDirectoryStore } from "./open-directory-store.ts";
import type { DirectoryStore } from "./directory-store.ts";
import type { AuditEventRow, ShopRow } from "./schema.ts";

const stores = storesPerFile();
const opened: DirectoryStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
const open = async (choice: Awaited<ReturnType<typeof stores.next>>) => {
  const store = await openDirectoryStore(choice);
  opened.push(store);
  return store;
};

const shop: ShopRow = {
  id: "shop-old",
  accountId: "acc-old",
  name: "Kept in directory.db",
  active: false,
  sandbox: true,
  methods: ["CARD"],
  tariff: DEFAULT_TARIFF,
  webhookUrl: "https://shop.example.com/hooks",
  signingSecret: "old-secret",
  successUrl: null,
  failUrl: null,
  receipts: { required: true, taxation: "usn_income", vat: "none" },
  savedMethodConsent: "ALWAYS",
  connectors: null,
  retiringSecret: "older-secret",
  retiringSecretExpiresAt: 5,
  createdAt: 1,
  updatedAt: 2,
};

const audit: AuditEventRow = {
  id: "audit-1",
  at: 3,
  action: "api_key.rolled",
  accountId: "acc-old",
  shopId: "shop-old",
  actorKind: "member",
  actorId: "user-1",
  actorLabel: "owner@example.com",
  actorIp: "203.0.113.9",
  actorUserAgent: "Firefox",
  actorRole: "admin",
  targetType: "api_key",
  targetId: "key-new",
  before: { keyPrefix: "pk_test_cccc" },
  after: { keyPrefix: "pk_test_dddd", previousKeyExpiresAt: "1970-01-01T00:00:00.009Z" },
  requestId: null,
  recordedAt: 4,
};

/**
 * A directory that kept its rows in its own directory.db moves them to another store by naming
 * that file (DIRECTORY_IMPORT_FROM): every field comes over as it was (flags, JSON), once.
 */
describe.each(ENGINES)("importing an older directory.db into a new store (%s)", (engine) => {
  test("accounts, shops and keys come over field for field, once; a store with rows imports nothing", async () => {
    const oldChoice = await stores.next("sqlite", "directory.db");
    const old = await open(oldChoice);
    await old.tx(async (t) => {
      await t.insertAccount("acc-old", 1);
      await t.insertShop(shop);
      await t.insertApiKey({ id: "key-old", shopId: "shop-old", keyHash: "c".repeat(64), displayPrefix: "pk_test_cccc", createdAt: 1, revokedAt: null, expiresAt: 9 });
      await t.insertAudit([audit]);
    });
    await old.close();
    const from = oldChoice.engine === "sqlite" ? oldChoice.path : "";

    const fresh = await open(await stores.next(engine, "directory.db"));
    expect(await fresh.importLegacy(from)).toEqual({ accounts: 1, shops: 1, api_keys: 1, ...(engine === "postgres" ? { audit_events: 1 } : {}) });
    expect(await fresh.shop("shop-old")).toEqual(shop);
    expect(await fresh.key("c".repeat(64))).toMatchObject({ shopId: "shop-old", expiresAt: 9 });
    // Moving to PostgreSQL brings the audit log along (an SQLite directory imports only from a dashboard.db, which has none).
    if (engine === "postgres") expect(await fresh.auditPage({ limit: 10 })).toEqual([audit]);
    // Marked: not even an empty store takes that snapshot again.
    const another = await open(await stores.next(engine, "directory.db"));
    expect(await another.importLegacy(from)).toBeUndefined();
    expect(await another.allShops()).toEqual([]);
  });
});
