import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kvm, type KV } from "@nats-io/kv";
import { apiKeyKvKey, DEFAULT_TARIFF, shopKvKey, ShopRecord } from "@payaccept/contracts";
import { openDirectoryBucket, openStore } from "@payaccept/platform";
import { KvPublisher } from "../services/directory/src/kv-publisher.ts";
import { DirectoryStore } from "../services/directory/src/store/directory-store.ts";
import { schema, type ShopRow } from "../services/directory/src/store/schema.ts";
import { Stack, testLog } from "./harness/stack.ts";

setDefaultTimeout(60_000);

/**
 * Two publishers (two directory replicas) over one store, their steps interleaved on purpose:
 * the one that read the store earlier writes last, and must not put its older state over the newer.
 */
let stack: Stack;
let dir: string;
let store: DirectoryStore;
let bucket: KV;
beforeAll(async () => {
  stack = await Stack.start({ services: [] });
  dir = mkdtempSync(join(tmpdir(), "directory-publisher-"));
  store = new DirectoryStore(openStore(join(dir, "directory.db"), schema, join(import.meta.dir, "../services/directory/drizzle")));
  bucket = await openDirectoryBucket(stack.nc);
});
afterAll(async () => {
  await stack?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const shopRow = (id: string, name: string): ShopRow => ({
  id,
  accountId: "account-1",
  name,
  active: true,
  sandbox: true,
  methods: ["SBP", "CARD"],
  tariff: DEFAULT_TARIFF,
  webhookUrl: null,
  signingSecret: "secret",
  successUrl: null,
  failUrl: null,
  receipts: null,
  createdAt: 1,
  updatedAt: 1,
});

/** The bucket, but the first put waits for `before` to finish: the other replica's whole publish lands in between. */
function delayedFirstPut(kv: KV, before: () => Promise<void>): KV {
  let first = true;
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "put" || prop === "delete")
        return async (...args: unknown[]) => {
          if (first) {
            first = false;
            await before();
          }
          return (target[prop] as (...a: unknown[]) => Promise<unknown>)(...args);
        };
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

test("a replica that read the store before another's change does not publish over it", async () => {
  store.transaction(() => {
    store.insertAccount("account-1", 1);
    store.insertShop(shopRow("shop-1", "Old name"));
  });
  const newer = new KvPublisher(store, async () => new Kvm(stack.nc).open("directory"), testLog);
  // Between the slow replica's store read ("Old name") and its write, the name changes and the
  // other replica publishes it.
  const slow = new KvPublisher(
    store,
    async () =>
      delayedFirstPut(bucket, async () => {
        store.saveShop({ ...shopRow("shop-1", "New name"), updatedAt: 2 });
        await newer.syncShop("shop-1");
      }),
    testLog,
  );
  await slow.syncShop("shop-1");
  const entry = (await bucket.get(shopKvKey("shop-1")))!;
  expect(ShopRecord.parse(entry.json()).name).toBe("New name");
  // The first write to the bucket and the only one: the slow replica's stale put was refused and,
  // on its second look, nothing was left to do.
  expect(entry.revision).toBe(1);
});

test("a revoked key deleted by one replica is not brought back by another's late write", async () => {
  store.insertApiKey({ id: "key-1", shopId: "shop-1", keyHash: "a".repeat(64), displayPrefix: "pk_test_aaaa", createdAt: 1, revokedAt: null });
  const other = new KvPublisher(store, async () => new Kvm(stack.nc).open("directory"), testLog);
  await other.syncKey("a".repeat(64));
  const slow = new KvPublisher(
    store,
    async () =>
      delayedFirstPut(bucket, async () => {
        store.revokeKeys("shop-1", 2);
        await other.syncKey("a".repeat(64));
      }),
    testLog,
  );
  // The bucket's copy differs from the live row, so the slow replica means to write the key; between
  // its read and its write the key is revoked and the other replica deletes it.
  await bucket.put(apiKeyKvKey("a".repeat(64)), JSON.stringify({ shopId: "shop-1", keyId: "stale" }));
  await slow.syncKey("a".repeat(64));
  expect((await bucket.get(apiKeyKvKey("a".repeat(64))))?.operation).toBe("DEL");
});
