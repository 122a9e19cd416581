import { DEFAULT_TARIFF, DomainError, PAYMENT_METHODS, rpcs, type RpcResponse } from "@payaccept/contracts";
import type { Logger } from "@payaccept/platform";
import type { z } from "zod";
import type { DirectoryStore } from "../store/directory-store.ts";
import type { ApiKeyRow, ShopRow } from "../store/schema.ts";
import { issueApiKey, issueSigningSecret, type IssuedApiKey } from "./credentials.ts";
import type { KvPublisher } from "./kv-publisher.ts";
import { toShopView } from "./records.ts";
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
  if (req.accountId !== undefined && !deps.store.accountExists(req.accountId)) {
    throw new DomainError("ACCOUNT_NOT_FOUND");
  }
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
    createdAt: at,
    updatedAt: at,
  };
  const key = issueApiKey(req.sandbox);
  deps.store.transaction(() => {
    if (req.accountId === undefined) deps.store.insertAccount(accountId, at);
    deps.store.insertShop(shop);
    deps.store.insertApiKey(liveKeyRow(shop.id, key, at));
  });
  await propagate(deps, "credential", () => Promise.all([deps.publisher.syncShop(shop.id), deps.publisher.syncKey(key.keyHash)]));
  deps.log.info({ shopId: shop.id, accountId, sandbox: shop.sandbox }, "shop created");
  return { accountId, shopId: shop.id, apiKey: key.apiKey, signingSecret: shop.signingSecret };
}

export async function setActive(deps: DirectoryDeps, req: Input<"setActive">): Promise<Output<"setActive">> {
  const row = { ...existingShop(deps, req.shopId), active: req.active, updatedAt: deps.now() };
  deps.store.saveShop(row);
  await propagate(deps, "confirm", () => deps.publisher.syncShop(row.id));
  deps.log.info({ shopId: row.id, active: row.active }, "shop activity changed");
  return toShopView(row);
}

/** Issues a new key and revokes every earlier one at once: rotation answers a leak. */
export async function rotateKey(deps: DirectoryDeps, req: Input<"rotateKey">): Promise<Output<"rotateKey">> {
  const shop = existingShop(deps, req.shopId);
  if (!shop.active) throw new DomainError("KEY_SHOP_INACTIVE");
  const at = deps.now();
  const key = issueApiKey(shop.sandbox);
  const revoked = deps.store.transaction(() => {
    const old = deps.store.revokeKeys(shop.id, at);
    deps.store.insertApiKey(liveKeyRow(shop.id, key, at));
    return old;
  });
  await propagate(deps, "credential", async () => {
    await deps.publisher.syncKey(key.keyHash);
    await Promise.all(revoked.map((k) => deps.publisher.syncKey(k.keyHash)));
  });
  deps.log.info({ shopId: shop.id, revoked: revoked.length }, "api key rotated");
  return { shopId: shop.id, apiKey: key.apiKey };
}

export async function updateShop(deps: DirectoryDeps, req: Input<"updateShop">): Promise<Output<"updateShop">> {
  const current = existingShop(deps, req.shopId);
  const { shopId: _id, tariff, receipts, ...input } = req;
  const settings = parseSettings(input, current.sandbox, deps.policy);
  const changes = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
  const row: ShopRow = { ...current, ...changes, ...(tariff ? { tariff } : {}), ...(receipts ? { receipts } : {}), updatedAt: deps.now() };
  deps.store.saveShop(row);
  await propagate(deps, "confirm", () => deps.publisher.syncShop(row.id));
  deps.log.info({ shopId: row.id, fields: [...Object.keys(changes), ...(tariff ? ["tariff"] : []), ...(receipts ? ["receipts"] : [])] }, "shop updated");
  return toShopView(row);
}

/** A new webhook signing secret; webhooks signed from now on (retries included) use it. */
export async function rotateSecret(deps: DirectoryDeps, req: Input<"rotateSecret">): Promise<Output<"rotateSecret">> {
  const row = { ...existingShop(deps, req.shopId), signingSecret: issueSigningSecret(), updatedAt: deps.now() };
  deps.store.saveShop(row);
  await propagate(deps, "credential", () => deps.publisher.syncShop(row.id));
  deps.log.info({ shopId: row.id }, "signing secret rotated");
  return { shopId: row.id, signingSecret: row.signingSecret };
}

const liveKeyRow = (shopId: string, key: IssuedApiKey, at: number): ApiKeyRow => ({
  id: Bun.randomUUIDv7(),
  shopId,
  keyHash: key.keyHash,
  displayPrefix: key.displayPrefix,
  createdAt: at,
  revokedAt: null,
});

function existingShop(deps: DirectoryDeps, shopId: string): ShopRow {
  const row = deps.store.shop(shopId);
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
