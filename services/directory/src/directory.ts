import { DEFAULT_TARIFF, DomainError, PAYMENT_METHODS, rpcs, type RpcResponse } from "@payaccept/contracts";
import type { Logger } from "@payaccept/platform";
import type { z } from "zod";
import type { DirectoryOps, DirectoryStore } from "./store/directory-store.ts";
import type { ApiKeyRow, ShopRow } from "./store/schema.ts";
import { issueApiKey, issueSigningSecret, type IssuedApiKey } from "./credentials.ts";
import type { KvPublisher } from "./kv-publisher.ts";
import { toShopDetail, toShopView } from "./records.ts";
import { parseSettings } from "./shop-input.ts";
import type { WebhookUrlPolicy } from "./webhook-url.ts";

export type DirectoryDeps = {
  store: DirectoryStore;
  publisher: Pick<KvPublisher, "syncShop" | "syncKey">;
  policy: WebhookUrlPolicy;
  log: Logger;
  now: () => number;
};

type Input<K extends keyof typeof rpcs.directory> = z.output<(typeof rpcs.directory)[K]["request"]>;
type Output<K extends keyof typeof rpcs.directory> = RpcResponse<(typeof rpcs.directory)[K]>;

/** A new shop (and a new account unless accountId names an existing one) with its first key. */
export async function createShop(deps: DirectoryDeps, req: Input<"createShop">): Promise<Output<"createShop">> {
  const settings = parseSettings(
    { name: req.name, webhookUrl: req.webhookUrl, methods: req.methods ?? [...PAYMENT_METHODS] },
    req.sandbox,
    deps.policy,
  );
  if (req.accountId !== undefined) await existingAccount(deps.store, req.accountId);
  const at = deps.now();
  const accountId = req.accountId ?? Bun.randomUUIDv7();
  const shop: ShopRow = {
    id: Bun.randomUUIDv7(),
    accountId,
    name: settings.name!,
    active: true,
    sandbox: req.sandbox,
    methods: settings.methods!,
    tariff: DEFAULT_TARIFF,
    webhookUrl: settings.webhookUrl ?? null,
    signingSecret: issueSigningSecret(),
    successUrl: null,
    failUrl: null,
    receipts: null,
    savedMethodConsent: null,
    createdAt: at,
    updatedAt: at,
  };
  const key = issueApiKey(req.sandbox);
  await deps.store.tx(async (t) => {
    if (req.accountId === undefined) await t.insertAccount(accountId, at);
    await t.insertShop(shop);
    await t.insertApiKey(liveKeyRow(shop.id, key, at));
  });
  await propagate(deps, "credential", () => Promise.all([deps.publisher.syncShop(shop.id), deps.publisher.syncKey(key.keyHash)]));
  deps.log.info({ shopId: shop.id, accountId, sandbox: shop.sandbox }, "shop created");
  return { accountId, shopId: shop.id, apiKey: key.apiKey, signingSecret: shop.signingSecret };
}

export async function setActive(deps: DirectoryDeps, req: Input<"setActive">): Promise<Output<"setActive">> {
  const row = await changeShop(deps, req.shopId, (current) => ({ ...current, active: req.active }));
  await propagate(deps, "confirm", () => deps.publisher.syncShop(row.id));
  deps.log.info({ shopId: row.id, active: row.active }, "shop activity changed");
  return toShopView(row);
}

/** Issues a new key and revokes every earlier one at once: rotation answers a leak. */
export async function rotateKey(deps: DirectoryDeps, req: Input<"rotateKey">): Promise<Output<"rotateKey">> {
  const at = deps.now();
  const { shop, key, revoked } = await deps.store.tx(async (t) => {
    const shop = found(await t.shopForUpdate(req.shopId), req.shopId);
    if (!shop.active) throw new DomainError("KEY_SHOP_INACTIVE");
    const key = issueApiKey(shop.sandbox);
    const revoked = await t.revokeKeys(shop.id, at);
    await t.insertApiKey(liveKeyRow(shop.id, key, at));
    return { shop, key, revoked };
  });
  await propagate(deps, "credential", async () => {
    await deps.publisher.syncKey(key.keyHash);
    await Promise.all(revoked.map((k) => deps.publisher.syncKey(k.keyHash)));
  });
  deps.log.info({ shopId: shop.id, revoked: revoked.length }, "api key rotated");
  return { shopId: shop.id, apiKey: key.apiKey };
}

export async function updateShop(deps: DirectoryDeps, req: Input<"updateShop">): Promise<Output<"updateShop">> {
  const { shopId: _id, tariff, receipts, savedMethodConsent, ...input } = req;
  // Settings taken as they are (their shapes are the contract's), beside those parseSettings checks.
  const plain = { ...(tariff ? { tariff } : {}), ...(receipts ? { receipts } : {}), ...(savedMethodConsent ? { savedMethodConsent } : {}) };
  let changes: Partial<ShopRow> = {};
  const row = await changeShop(deps, req.shopId, (current) => {
    const settings = parseSettings(input, current.sandbox, deps.policy);
    changes = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
    return { ...current, ...changes, ...plain };
  });
  await propagate(deps, "confirm", () => deps.publisher.syncShop(row.id));
  deps.log.info({ shopId: row.id, fields: [...Object.keys(changes), ...Object.keys(plain)] }, "shop updated");
  return toShopView(row);
}

/** A new webhook signing secret; webhooks signed from now on (retries included) use it. */
export async function rotateSecret(deps: DirectoryDeps, req: Input<"rotateSecret">): Promise<Output<"rotateSecret">> {
  const row = await changeShop(deps, req.shopId, (current) => ({ ...current, signingSecret: issueSigningSecret() }));
  await propagate(deps, "credential", () => deps.publisher.syncShop(row.id));
  deps.log.info({ shopId: row.id }, "signing secret rotated");
  return { shopId: row.id, signingSecret: row.signingSecret };
}

export async function getShop(deps: DirectoryDeps, req: Input<"getShop">): Promise<Output<"getShop">> {
  const row = found(await deps.store.shop(req.shopId), req.shopId);
  return { shop: toShopDetail(row, req.withSecret), key: await deps.store.liveKeyHint(row.id) };
}

export async function listShops(deps: DirectoryDeps, req: Input<"listShops">): Promise<Output<"listShops">> {
  return { items: (await deps.store.shopsOfAccount(req.accountId)).map(({ shop, key }) => ({ shop: toShopDetail(shop, false), key })) };
}

export async function browseShops(deps: DirectoryDeps, req: Input<"browseShops">): Promise<Output<"browseShops">> {
  const { items, total } = await deps.store.shopsPage(req.offset, req.limit);
  return { items: items.map((row) => toShopDetail(row, false)), total };
}

/** An account with no shop yet: a merchant who signs up in the dashboard creates shops later. */
export async function createAccount(deps: DirectoryDeps): Promise<Output<"createAccount">> {
  const account = { id: Bun.randomUUIDv7(), createdAt: deps.now() };
  await deps.store.insertAccount(account.id, account.createdAt);
  deps.log.info({ accountId: account.id }, "account created");
  return { accountId: account.id, createdAt: account.createdAt };
}

export async function getAccount(deps: DirectoryDeps, req: Input<"getAccount">): Promise<Output<"getAccount">> {
  const account = await existingAccount(deps.store, req.accountId);
  return { accountId: account.id, createdAt: account.createdAt };
}

const liveKeyRow = (shopId: string, key: IssuedApiKey, at: number): ApiKeyRow => ({
  id: Bun.randomUUIDv7(),
  shopId,
  keyHash: key.keyHash,
  displayPrefix: key.displayPrefix,
  createdAt: at,
  revokedAt: null,
});

/**
 * Reads, changes and saves a shop holding its row (DirectoryOps.shopForUpdate): replicas changing
 * one shop at once cannot lose each other's changes to different fields.
 */
function changeShop(deps: DirectoryDeps, shopId: string, change: (current: ShopRow) => ShopRow): Promise<ShopRow> {
  return deps.store.tx(async (t) => {
    const row = { ...change(found(await t.shopForUpdate(shopId), shopId)), updatedAt: deps.now() };
    await t.saveShop(row);
    return row;
  });
}

async function existingAccount(store: DirectoryOps, accountId: string): Promise<{ id: string; createdAt: number }> {
  const account = await store.account(accountId);
  if (!account) throw new DomainError("ACCOUNT_NOT_FOUND");
  return account;
}

function found(row: ShopRow | undefined, shopId: string): ShopRow {
  if (!row) throw new DomainError("SHOP_NOT_FOUND");
  return row;
}

/**
 * The change is committed before it is published; a failed publish is retried by the
 * publisher's resync until it lands. A reply carrying a credential shown only once still
 * succeeds (the caller could never see it again); any other reply says the change is saved but
 * not yet in force, so the caller can retry (every such operation is idempotent).
 */
async function propagate(deps: DirectoryDeps, kind: "credential" | "confirm", publish: () => Promise<unknown>): Promise<void> {
  try {
    await publish();
  } catch (err) {
    deps.log.error({ err }, "directory change saved but not yet published; resync scheduled");
    if (kind === "confirm") throw new DomainError("DIRECTORY_PUBLISH_PENDING");
  }
}
