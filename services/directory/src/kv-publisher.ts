import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { apiKeyKvKey, shopKvKey } from "@payaccept/contracts";
import { retryDelayMs, retrying, type Backoff, type Logger } from "@payaccept/platform";
import type { DirectoryStore } from "./store/directory-store.ts";
import { toApiKeyRecord, toShopRecord } from "./records.ts";

/**
 * Until one succeeds: the bucket must end up matching the store. The ceiling is what a change
 * waits after JetStream is back: with 30 s, a shop created while a resumed nats-server 2.9 node
 * kept the bucket without a leader (25 s) reached the gateways up to 30 s after the leader returned.
 * A resync that fails is cheap (its first read fails at once), so trying every few seconds costs little.
 */
const RESYNC_RETRY: Backoff = { baseMs: 500, capMs: 4_000 };
/**
 * Compare-and-set rounds of one entry before giving up to the resync: each lost round means another
 * replica wrote the entry in between, so a handful only happens under a storm of changes to one shop.
 */
const MAX_CAS_ROUNDS = 10;
/** Entries checked at once by a resync. */
const RESYNC_CONCURRENCY = 16;

const SHOP_PREFIX = shopKvKey("");
const KEY_PREFIX = apiKeyKvKey("");

/**
 * Projects the directory tables onto the KV bucket; the directory's store is the source of truth.
 *
 * Several replicas publish, so every write is a compare-and-set on the entry's KV revision:
 * read the entry's revision, THEN read the row from the store, then write expecting that
 * revision (`put` with previousSeq; 0 means "never written", which a delete marker does not
 * match, so a revoked key cannot come back). If two replicas race, the second write fails and is
 * redone from a fresh read. A write that succeeds was based on a store read made after the
 * previous write of that entry, so an older state can never overwrite a newer one.
 * A failed publish schedules a full resync, retried with backoff until it succeeds.
 */
export class KvPublisher {
  private kv: KV | undefined;
  private resyncTimer: ReturnType<typeof setTimeout> | undefined;
  /** Failed resyncs since the last good one. */
  private resyncFailures = 0;
  private stopped = false;

  constructor(
    private readonly store: DirectoryStore,
    /** Opens (creating when missing) the bucket: after NATS lost its store, it must be made again. */
    private readonly openBucket: () => Promise<KV>,
    private readonly log: Logger,
  ) {}

  syncShop(shopId: string): Promise<void> {
    return this.run(shopKvKey(shopId));
  }

  /** Puts a live key, deletes a revoked or unknown one. */
  syncKey(keyHash: string): Promise<void> {
    return this.run(apiKeyKvKey(keyHash));
  }

  /** Brings every shop, every live key and every other entry in the bucket in line with the store. */
  async resyncAll(): Promise<void> {
    this.kv = await this.openBucket();
    const entries = new Set<string>();
    for await (const key of await this.kv.keys()) entries.add(key);
    for (const row of await this.store.allShops()) entries.add(shopKvKey(row.id));
    for (const row of await this.store.liveKeys()) entries.add(apiKeyKvKey(row.keyHash));
    const queue = [...entries];
    let written = 0;
    const worker = async (kv: KV) => {
      for (let key = queue.pop(); key !== undefined; key = queue.pop()) if (await this.syncEntry(kv, key)) written++;
    };
    await Promise.all(Array.from({ length: RESYNC_CONCURRENCY }, () => worker(this.kv!)));
    this.log.info({ entries: entries.size, written }, "directory published");
  }

  /**
   * The start's resync, tried again with backoff until one succeeds: the directory serves nothing
   * before the bucket matches its store, and a JetStream slow to answer at start (a busy host, a
   * cluster electing the bucket's leader) is waited out, not a crash of the process.
   */
  resyncAtStart(): Promise<void> {
    return retrying(RESYNC_RETRY, () => this.resyncAll(), {
      stopped: () => this.stopped,
      onRetry: (err, failures) => this.log.warn({ err, failures }, "directory not yet published at start; trying again"),
    });
  }

  /** Resync soon (after a failure or a reconnect); repeats with backoff until one succeeds. */
  scheduleResync(): void {
    if (this.resyncTimer || this.stopped) return;
    this.resyncTimer = setTimeout(() => {
      this.resyncAll().then(
        () => {
          this.resyncTimer = undefined;
          this.resyncFailures = 0;
        },
        (err) => {
          this.resyncTimer = undefined;
          this.resyncFailures++;
          this.log.error({ err, failures: this.resyncFailures }, "directory resync failed; retrying");
          this.scheduleResync();
        },
      );
    }, retryDelayMs(RESYNC_RETRY, this.resyncFailures + 1));
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.resyncTimer);
  }

  private async run(key: string): Promise<void> {
    try {
      this.kv ??= await this.openBucket();
      await this.syncEntry(this.kv, key);
    } catch (err) {
      this.scheduleResync();
      throw err;
    }
  }

  /** Makes one entry equal the store (see the class comment); true when it had to write. */
  private async syncEntry(kv: KV, key: string): Promise<boolean> {
    for (let round = 1; ; round++) {
      const entry = await kv.get(key);
      const revision = entry?.revision ?? 0;
      const live = entry?.operation === "PUT";
      const desired = await this.desired(key);
      try {
        if (desired === undefined) {
          if (!live) return false;
          await kv.delete(key, { previousSeq: revision });
        } else {
          if (live && entry.string() === desired) return false;
          await kv.put(key, desired, { previousSeq: revision });
        }
        return true;
      } catch (err) {
        if (!isRevisionConflict(err) || round >= MAX_CAS_ROUNDS) throw err;
      }
    }
  }

  /** The entry's value as the store has it now; undefined when the entry should not exist. */
  private async desired(key: string): Promise<string | undefined> {
    if (key.startsWith(SHOP_PREFIX)) {
      const row = await this.store.shop(key.slice(SHOP_PREFIX.length));
      return row && JSON.stringify(toShopRecord(row));
    }
    if (key.startsWith(KEY_PREFIX)) {
      const row = await this.store.key(key.slice(KEY_PREFIX.length));
      return row && row.revokedAt === null ? JSON.stringify(toApiKeyRecord(row)) : undefined;
    }
    return undefined;
  }
}

/** Another writer changed the entry since we read its revision. */
const isRevisionConflict = (err: unknown) =>
  err instanceof JetStreamApiError &&
  (err.code === JetStreamApiCodes.StreamWrongLastSequence || err.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown);
