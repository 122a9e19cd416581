import { DEFAULT_TARIFF, DomainError, PAYMENT_METHODS, rpcs, SYSTEM_ACTOR, type RpcResponse } from "@payaccept/contracts";
import type { Logger } from "@payaccept/platform";
import type { z } from "zod";
import type { DirectoryOps, DirectoryStore } from "./store/directory-store.ts";
import type { ApiKeyRow, AuditEventRow, ShopRow } from "./store/schema.ts";
import { entryOf, type Caller } from "./audit/entries.ts";
import { issueApiKey, issueSigningSecret, type IssuedApiKey } from "./credentials.ts";
import type { KvPublisher } from "./kv-publisher.ts";
import { toRetiringKey, toShopDetail, toShopView } from "./records.ts";
import { parseSettings } from "./shop-input.ts";
import type { WebhookUrlPolicy } from "./webhook-url.ts";

export type DirectoryDeps = {
  store: DirectoryStore;
  publisher: Pick<KvPublisher, "syncShop" | "syncKey">;
  policy: WebhookUrlPolicy;
  log: Logger;
  now: () => number;
  /** How long a new payout account holds the account's payouts (PAYOUT_ACCOUNT_HOLD). */
  payoutHoldMs: number;
};

type Input<K extends keyof typeof rpcs.directory> = z.output<(typeof rpcs.directory)[K]["request"]>;
type Output<K extends keyof typeof rpcs.directory> = RpcResponse<(typeof rpcs.directory)[K]>;

/** A new shop (and a new account unless accountId names an existing one) with its first key. */
export async function createShop(deps: DirectoryDeps, req: Input<"createShop">, by: Caller): Promise<Output<"createShop">> {
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
    connectors: null,
    retiringSecret: null,
    retiringSecretExpiresAt: null,
    createdAt: at,
    updatedAt: at,
  };
  const key = issueApiKey(req.sandbox);
  const keyRow = liveKeyRow(shop.id, key, at);
  const on = { accountId, shopId: shop.id };
  await deps.store.tx(async (t) => {
    if (req.accountId === undefined) await t.insertAccount(accountId, at);
    await t.insertShop(shop);
    await t.insertApiKey(keyRow);
    await t.insertAudit([
      entryOf(by, at, { ...on, action: "shop.created", after: { name: shop.name, sandbox: shop.sandbox, methods: shop.methods, webhookUrl: shop.webhookUrl } }),
      entryOf(by, at, { ...on, action: "api_key.issued", target: keyTarget(keyRow), after: { keyPrefix: key.displayPrefix } }),
    ]);
  });
  await propagate(deps, "credential", () => Promise.all([deps.publisher.syncShop(shop.id), deps.publisher.syncKey(key.keyHash)]));
  deps.log.info({ shopId: shop.id, accountId, sandbox: shop.sandbox }, "shop created");
  return { accountId, shopId: shop.id, apiKey: key.apiKey, signingSecret: shop.signingSecret };
}

export async function setActive(deps: DirectoryDeps, req: Input<"setActive">, by: Caller): Promise<Output<"setActive">> {
  const row = await changeShop(
    deps,
    req.shopId,
    (current) => (current.active === req.active ? current : { ...current, active: req.active }),
    (before, after, at) => [entryOf(by, at, { ...shopScope(after), action: after.active ? "shop.activated" : "shop.deactivated", before: { active: before.active }, after: { active: after.active } })],
  );
  await propagate(deps, "confirm", () => deps.publisher.syncShop(row.id));
  deps.log.info({ shopId: row.id, active: row.active }, "shop activity changed");
  return toShopView(row);
}

/**
 * Issues a new key. The live key it replaces stops at once (rotation answers a leak), or with an
 * overlap keeps working until its expiry, which every reader enforces from its own copy at that
 * instant (docs/directory.md, "Rolling a key"). Keys already in an overlap keep theirs.
 */
export async function rotateKey(deps: DirectoryDeps, req: Input<"rotateKey">, by: Caller): Promise<Output<"rotateKey">> {
  const at = deps.now();
  const until = req.overlapMs > 0 ? at + req.overlapMs : null;
  const { shop, key, retired } = await deps.store.tx(async (t) => {
    const shop = found(await t.shopForUpdate(req.shopId), req.shopId);
    if (!shop.active) throw new DomainError("KEY_SHOP_INACTIVE");
    const key = issueApiKey(shop.sandbox);
    const retired = await t.retireLiveKey(shop.id, at, until);
    const row = liveKeyRow(shop.id, key, at);
    await t.insertApiKey(row);
    const previous = retired[0];
    await t.insertAudit([
      previous
        ? entryOf(by, at, {
            ...shopScope(shop),
            action: "api_key.rolled",
            target: keyTarget(row),
            before: { keyPrefix: previous.displayPrefix },
            after: { keyPrefix: key.displayPrefix, previousKeyExpiresAt: iso(until) },
          })
        : entryOf(by, at, { ...shopScope(shop), action: "api_key.issued", target: keyTarget(row), after: { keyPrefix: key.displayPrefix } }),
    ]);
    return { shop, key, retired };
  });
  await propagate(deps, "credential", async () => {
    await deps.publisher.syncKey(key.keyHash);
    await syncKeys(deps, retired.map((k) => k.keyHash));
  });
  deps.log.info({ shopId: shop.id, retired: retired.length, overlapMs: req.overlapMs }, "api key rotated");
  return { shopId: shop.id, apiKey: key.apiKey, previousKeyExpiresAt: retired.length > 0 ? iso(until) : null };
}

/** The shop's keys in their overlap (or the one keyId names) stop now: the merchant has deployed the new one. */
export async function endKeyOverlap(deps: DirectoryDeps, req: Input<"endKeyOverlap">, by: Caller): Promise<Output<"endKeyOverlap">> {
  const at = deps.now();
  const ended = await deps.store.tx(async (t) => {
    const shop = found(await t.shopForUpdate(req.shopId), req.shopId);
    const ended = await t.endKeyOverlap(shop.id, req.keyId, at);
    await t.insertAudit(
      ended.map((k) =>
        entryOf(by, at, { ...shopScope(shop), action: "api_key.overlap_ended", target: keyTarget(k), before: { keyPrefix: k.displayPrefix, expiresAt: iso(k.expiresAt) } }),
      ),
    );
    return ended;
  });
  await propagate(deps, "confirm", () => syncKeys(deps, ended.map((k) => k.keyHash)));
  deps.log.info({ shopId: req.shopId, ended: ended.length }, "api key overlap ended");
  return { shopId: req.shopId, ended: ended.length };
}

export async function updateShop(deps: DirectoryDeps, req: Input<"updateShop">, by: Caller): Promise<Output<"updateShop">> {
  const { shopId: _id, tariff, receipts, savedMethodConsent, connectors, ...input } = req;
  // Settings taken as they are (their shapes are the contract's), beside those parseSettings checks.
  const plain = {
    ...(tariff ? { tariff } : {}),
    ...(receipts ? { receipts } : {}),
    ...(savedMethodConsent ? { savedMethodConsent } : {}),
    // null, or a list for no method, clears the choice: every method goes to the default connector.
    ...(connectors === undefined ? {} : { connectors: connectors && (connectors.SBP || connectors.CARD) ? connectors : null }),
  };
  let changes: Partial<ShopRow> = {};
  const row = await changeShop(
    deps,
    req.shopId,
    (current) => {
      // Sandbox payments never reach an acquirer (docs/connectors.md): a sandbox shop has no connectors.
      if (current.sandbox && plain.connectors) throw new DomainError("CONNECTORS_NOT_FOR_SANDBOX");
      const settings = parseSettings(input, current.sandbox, deps.policy);
      changes = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
      return { ...current, ...changes, ...plain };
    },
    (before, after, at) => settingsEntries(by, before, after, at),
  );
  await propagate(deps, "confirm", () => deps.publisher.syncShop(row.id));
  deps.log.info({ shopId: row.id, fields: [...Object.keys(changes), ...Object.keys(plain)] }, "shop updated");
  return toShopView(row);
}

/**
 * A new webhook signing secret; webhooks signed from now on (retries included) use it. With an
 * overlap the secret it replaces keeps signing beside it until then (docs/webhooks.md, "Rotating
 * the signing secret"); one retiring secret at a time, so a second rotation within an overlap
 * drops the oldest one at once.
 */
export async function rotateSecret(deps: DirectoryDeps, req: Input<"rotateSecret">, by: Caller): Promise<Output<"rotateSecret">> {
  const row = await changeShop(
    deps,
    req.shopId,
    (current) => {
      const until = req.overlapMs > 0 ? deps.now() + req.overlapMs : null;
      return { ...current, signingSecret: issueSigningSecret(), retiringSecret: until === null ? null : current.signingSecret, retiringSecretExpiresAt: until };
    },
    (_before, after, at) => [entryOf(by, at, { ...shopScope(after), action: "signing_secret.rotated", after: { previousValidUntil: iso(after.retiringSecretExpiresAt) } })],
  );
  await propagate(deps, "credential", () => deps.publisher.syncShop(row.id));
  deps.log.info({ shopId: row.id, overlapMs: req.overlapMs }, "signing secret rotated");
  return { shopId: row.id, signingSecret: row.signingSecret, previousValidUntil: iso(row.retiringSecretExpiresAt) };
}

/** The retiring secret stops signing now. */
export async function endSecretOverlap(deps: DirectoryDeps, req: Input<"endSecretOverlap">, by: Caller): Promise<Output<"endSecretOverlap">> {
  let ended = false;
  const row = await changeShop(
    deps,
    req.shopId,
    (current) => ((ended = current.retiringSecret !== null) ? { ...current, retiringSecret: null, retiringSecretExpiresAt: null } : current),
    (before, after, at) => [entryOf(by, at, { ...shopScope(after), action: "signing_secret.overlap_ended", before: { validUntil: iso(before.retiringSecretExpiresAt) } })],
  );
  if (ended) await propagate(deps, "confirm", () => deps.publisher.syncShop(row.id));
  deps.log.info({ shopId: row.id, ended }, "signing secret overlap ended");
  return { shopId: row.id, ended };
}

/** One shop for its owner; with withSecret (the Webhook tab's reveal) the secret, and the reveal is recorded. */
export async function getShop(deps: DirectoryDeps, req: Input<"getShop">, by: Caller): Promise<Output<"getShop">> {
  const row = found(await deps.store.shop(req.shopId), req.shopId);
  if (req.withSecret) {
    // A copy of the call (hedging) carries its id: one reveal, one entry.
    const id = by.callId === undefined ? undefined : `signing_secret.revealed:${by.callId}`;
    await deps.store.insertAudit([entryOf(by, deps.now(), { id, ...shopScope(row), action: "signing_secret.revealed" })]);
  }
  return {
    shop: toShopDetail(row, req.withSecret),
    key: await deps.store.liveKeyHint(row.id),
    retiringKeys: (await deps.store.retiringKeys(row.id)).map(toRetiringKey),
  };
}

export async function listShops(deps: DirectoryDeps, req: Input<"listShops">): Promise<Output<"listShops">> {
  return { items: (await deps.store.shopsOfAccount(req.accountId)).map(({ shop, key }) => ({ shop: toShopDetail(shop, false), key, retiringKeys: [] })) };
}

/**
 * The overlaps that ran out: their keys are revoked and their secrets dropped, each recorded as
 * the platform's doing at its expiry, then published. Readers already refused them from their own
 * copy at that instant; this makes the store and the bucket say so. Run by every replica
 * (main.ts); the statements make each expiry one replica's.
 */
export async function expireOverlaps(deps: DirectoryDeps): Promise<{ keys: number; secrets: number }> {
  const now = deps.now();
  const system: Caller = { actor: SYSTEM_ACTOR };
  const { keys, shops } = await deps.store.tx(async (t) => {
    const keys = await t.expireKeys(now);
    const shops = await t.shopsWithExpiredSecret(now);
    const entries: AuditEventRow[] = [];
    for (const k of keys) {
      const shop = found(await t.shop(k.shopId), k.shopId);
      entries.push(entryOf(system, k.expiresAt!, { id: `api_key.expired:${k.id}`, ...shopScope(shop), action: "api_key.expired", target: keyTarget(k), before: { keyPrefix: k.displayPrefix } }));
    }
    for (const shop of shops) {
      await t.saveShop({ ...shop, retiringSecret: null, retiringSecretExpiresAt: null, updatedAt: now });
      const expiredAt = shop.retiringSecretExpiresAt!;
      entries.push(entryOf(system, expiredAt, { id: `signing_secret.expired:${shop.id}:${expiredAt}`, ...shopScope(shop), action: "signing_secret.expired" }));
    }
    await t.insertAudit(entries);
    return { keys, shops };
  });
  if (keys.length + shops.length === 0) return { keys: 0, secrets: 0 };
  await propagate(deps, "credential", () => Promise.all([syncKeys(deps, keys.map((k) => k.keyHash)), ...shops.map((s) => deps.publisher.syncShop(s.id))]));
  deps.log.info({ keys: keys.length, secrets: shops.length }, "overlaps expired");
  return { keys: keys.length, secrets: shops.length };
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
  expiresAt: null,
});

const shopScope = (shop: ShopRow) => ({ accountId: shop.accountId, shopId: shop.id });
const keyTarget = (k: ApiKeyRow) => ({ type: "api_key", id: k.id });
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const syncKeys = (deps: DirectoryDeps, hashes: string[]) => Promise.all(hashes.map((h) => deps.publisher.syncKey(h)));

/** The settings an owner or operator changes, and which audit action each falls under. */
const SETTINGS = ["name", "webhookUrl", "methods", "tariff", "successUrl", "failUrl", "receipts", "savedMethodConsent", "connectors"] as const;

/** What an update changed, before and after: the webhook URL on its own entry, the other settings on one. */
function settingsEntries(by: Caller, before: ShopRow, after: ShopRow, at: number): AuditEventRow[] {
  const changed = SETTINGS.filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]));
  const pick = (row: ShopRow, fields: readonly (typeof SETTINGS)[number][]) => Object.fromEntries(fields.map((f) => [f, row[f]]));
  const entries: AuditEventRow[] = [];
  if (changed.includes("webhookUrl")) entries.push(entryOf(by, at, { ...shopScope(after), action: "shop.webhook_url_changed", before: pick(before, ["webhookUrl"]), after: pick(after, ["webhookUrl"]) }));
  const others = changed.filter((f) => f !== "webhookUrl");
  if (others.length > 0) entries.push(entryOf(by, at, { ...shopScope(after), action: "shop.settings_changed", before: pick(before, others), after: pick(after, others) }));
  return entries;
}

/**
 * Reads, changes and saves a shop holding its row (DirectoryOps.shopForUpdate): replicas changing
 * one shop at once cannot lose each other's changes to different fields. A change that returns the
 * row it was given saves nothing; otherwise `audit` names its entries, written in the same transaction.
 */
function changeShop(
  deps: DirectoryDeps,
  shopId: string,
  change: (current: ShopRow) => ShopRow,
  audit: (before: ShopRow, after: ShopRow, at: number) => AuditEventRow[],
): Promise<ShopRow> {
  return deps.store.tx(async (t) => {
    const current = found(await t.shopForUpdate(shopId), shopId);
    const changed = change(current);
    if (changed === current) return current;
    const at = deps.now();
    const row = { ...changed, updatedAt: at };
    await t.saveShop(row);
    await t.insertAudit(audit(current, row, at));
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
