import { apiKeyKvKey, shopKvKey } from "@payaccept/contracts";
import { retryDelayMs, type Logger, type Backoff } from "@payaccept/platform";
import type { KV } from "@nats-io/kv";
import type { DirectoryStore } from "../store/directory-store.ts";
import { toApiKeyRecord, toShopRecord } from "./records.ts";

/** Until one succeeds: the bucket must end up matching the store. */
const RESYNC_RETRY: Backoff = { baseMs: 500, capMs: 30_000 };

/**
 * Projects the directory tables onto the KV bucket. dashboard.db is the source of truth; every
 * operation here writes the *current* state of a row, read when the operation runs, and the
 * operations run one at a time, so concurrent changes can never leave an older value in KV.
 * A failed publish schedules a full resync, retried with backoff until it succeeds.
 */
export class KvPublisher {
  private kv: KV | undefined;
  private chain: Promise<unknown> = Promise.resolve();
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
    return this.run(async (kv) => {
      const row = this.store.shop(shopId);
      if (row) await kv.put(shopKvKey(row.id), JSON.stringify(toShopRecord(row)));
    });
  }

  /** Puts a live key, deletes a revoked or unknown one. */
  syncKey(keyHash: string): Promise<void> {
    return this.run(async (kv) => {
      const row = this.store.key(keyHash);
      if (row && row.revokedAt === null) await kv.put(apiKeyKvKey(keyHash), JSON.stringify(toApiKeyRecord(row)));
      else await kv.delete(apiKeyKvKey(keyHash));
    });
  }

  /** Writes every shop and live key and deletes every other entry: a wiped or drifted bucket recovers. */
  resyncAll(): Promise<void> {
    return this.serial(async () => {
      this.kv = await this.openBucket();
      const desired = new Map<string, string>();
      for (const row of this.store.allShops()) desired.set(shopKvKey(row.id), JSON.stringify(toShopRecord(row)));
      for (const row of this.store.liveKeys()) desired.set(apiKeyKvKey(row.keyHash), JSON.stringify(toApiKeyRecord(row)));
      const stale: string[] = [];
      for await (const key of await this.kv.keys()) if (!desired.has(key)) stale.push(key);
      for (const [key, value] of desired) await this.kv.put(key, value);
      for (const key of stale) await this.kv.delete(key);
      this.log.info({ entries: desired.size, removed: stale.length }, "directory published");
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

  private run(op: (kv: KV) => Promise<void>): Promise<void> {
    return this.serial(async () => {
      this.kv ??= await this.openBucket();
      try {
        await op(this.kv);
      } catch (err) {
        this.scheduleResync();
        throw err;
      }
    });
  }

  private serial<T>(op: () => Promise<T>): Promise<T> {
    const next = this.chain.then(op, op);
    this.chain = next.catch(() => {});
    return next;
  }
}
