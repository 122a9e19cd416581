import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Kvm, type KV } from "@nats-io/kv";
import { apiKeyKvKey, DEFAULT_TARIFF, shopKvKey, ShopRecord } from "@payaccept/contracts";
import { openDirectoryBucket } from "@payaccept/platform";
import { KvPublisher } from "../services/directory/src/kv-publisher.ts";
import { openDirectoryStore } from "../services/directory/src/store/open-directory-store.ts";
import type { DirectoryStore } from "../services/directory/src/store/directory-store.ts";
import type { ShopRow } from "../services/directory/src/store/schema.ts";
import { ENGINES, storesPerFile } from "./harness/engines.ts";
import { Stack, testLog, STACK_START_MS } from "./harness/stack.ts";

setDefaultTimeout(60_000);

/**
 * Two publishers (two directory replicas) over one store, their steps interleaved on purpose:
 * the one that read the store earlier writes last, and must not put its older state over the newer.
 */
let stack: Stack;
let bucket: KV;
const stores = storesPerFile();
beforeAll(async () => {
  stack = await Stack.start({ services: [] });
  bucket = await openDirectoryBucket(stack.nc);
}, STACK_START_MS);
afterAll(async () => {
  await stack?.stop();
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
  savedMethodConsent: null,
  connectors: null,
  retiringSecret: null,
  retiringSecretExpiresAt: null,
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

describe.each(ENGINES)("over the directory's store (%s)", (engine) => {
  // One bucket for both engines' cases: each has its own shop and key.
  const shopId = `shop-${engine}`;
  const keyHash = (engine === "sqlite" ? "a" : "b").repeat(64);
  let store: DirectoryStore;
  beforeAll(async () => {
    store = await openDirectoryStore(await stores.next(engine, "directory.db"));
  }, STACK_START_MS);
  afterAll(() => store?.close());

  test("a replica that read the store before another's change does not publish over it", async () => {
    await store.tx(async (t) => {
      await t.insertAccount("account-1", 1);
      await t.insertShop(shopRow(shopId, "Old name"));
    });
    const newer = new KvPublisher(store, async () => new Kvm(stack.nc).open("directory"), testLog);
    // Between the slow replica's store read ("Old name") and its write, the name changes and the
    // other replica publishes it.
    const slow = new KvPublisher(
      store,
      async () =>
        delayedFirstPut(bucket, async () => {
          await store.saveShop({ ...shopRow(shopId, "New name"), updatedAt: 2 });
          await newer.syncShop(shopId);
        }),
      testLog,
    );
    await slow.syncShop(shopId);
    const entry = (await bucket.get(shopKvKey(shopId)))!;
    expect(ShopRecord.parse(entry.json()).name).toBe("New name");
    // The entry's first write and its only one: the slow replica's stale put was refused and,
    // on its second look, nothing was left to do.
    const history = [];
    for await (const e of await bucket.history({ key: shopKvKey(shopId) })) history.push(e.revision);
    expect(history).toEqual([entry.revision]);
  });

  test("a revoked key deleted by one replica is not brought back by another's late write", async () => {
    await store.insertApiKey({ id: "key-1", shopId: shopId, keyHash: keyHash, displayPrefix: "pk_test_aaaa", createdAt: 1, revokedAt: null, expiresAt: null });
    const other = new KvPublisher(store, async () => new Kvm(stack.nc).open("directory"), testLog);
    await other.syncKey(keyHash);
    const slow = new KvPublisher(
      store,
      async () =>
        delayedFirstPut(bucket, async () => {
          await store.retireLiveKey(shopId, 2, null);
          await other.syncKey(keyHash);
        }),
      testLog,
    );
    // The bucket's copy differs from the live row, so the slow replica means to write the key; between
    // its read and its write the key is revoked and the other replica deletes it.
    await bucket.put(apiKeyKvKey(keyHash), JSON.stringify({ shopId: shopId, keyId: "stale" }));
    await slow.syncKey(keyHash);
    expect((await bucket.get(apiKeyKvKey(keyHash)))?.operation).toBe("DEL");
  });
});

test("the start's publish waits out a bucket that does not answer at first, and then publishes", async () => {
  const store = await openDirectoryStore(await stores.next("sqlite", "directory-start.db"));
  try {
    await store.tx(async (t) => {
      await t.insertAccount("account-start", 1);
      await t.insertShop({ ...shopRow("shop-start", "Started"), accountId: "account-start" });
    });
    let opens = 0;
    const publisher = new KvPublisher(
      store,
      async () => {
        // The first two opens time out, as JetStream does on a busy host.
        if (++opens <= 2) throw new Error("timeout");
        return new Kvm(stack.nc).open("directory");
      },
      testLog,
    );
    await publisher.resyncAtStart();
    expect(opens).toBe(3);
    expect(ShopRecord.parse((await bucket.get(shopKvKey("shop-start")))!.json()).name).toBe("Started");
  } finally {
    await store.close();
  }
});
