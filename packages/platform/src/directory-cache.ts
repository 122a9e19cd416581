import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { ApiKeyRecord, apiKeyKvKey, ShopRecord, shopKvKey } from "@payaccept/contracts";
import type { z } from "zod";
import type { Logger } from "./log.ts";
import { retryDelayMs, type Backoff } from "./retry.ts";

/** A key that works, with the shop it belongs to. */
export type ActiveKey = { shop: ShopRecord; key: ApiKeyRecord };

/**
 * Whether a key works now: a rolled key's overlap ends at its expiresAt, on this process's clock,
 * at that instant and with nothing published (docs/gateway.md, "Rolled keys"). The instant is the
 * directory's store clock; a reader's clock off by d ends it d early or late (the offset is
 * `clock_offset_seconds`, NTP keeps it to milliseconds).
 */
export const keyInForce = (k: ApiKeyRecord, nowMs = Date.now()): boolean => k.expiresAt === undefined || Date.parse(k.expiresAt) > nowMs;

/** Until it works: without the directory no request can be authenticated. */
const WATCH_RETRY: Backoff = { baseMs: 100, capMs: 2_000 };

/**
 * An in-memory copy of the directory bucket, kept current by a KV watch: a revoked key or a
 * deactivated shop stops working on every replica as soon as the change is published.
 * ready resolves once the snapshot present at start has been read; after that a miss is authoritative.
 *
 * After a NATS reconnect (or a watch that ends) the whole bucket is read again into fresh maps that
 * replace the old ones once loaded: a server that came back without its store restarts revisions
 * from 1, and a watch resumed from the old position would silently miss every republished entry.
 */
export class DirectoryCache {
  private shopMap = new Map<string, ShopRecord>();
  private keyMap = new Map<string, ApiKeyRecord>();
  readonly ready: Promise<void>;
  private generation = 0;
  private stopWatch: (() => void) | undefined;
  private stopped = false;
  /** Highest revision applied by the current watch, and the bucket's head seen by the last check. */
  private seenRevision = 0;
  private headAtLastCheck = 0;
  private readonly checkTimer: ReturnType<typeof setInterval>;

  constructor(
    private readonly kv: KV,
    private readonly log: Logger,
    nc: NatsConnection,
    checkEveryMs = 5000,
  ) {
    this.ready = this.load();
    void (async () => {
      for await (const s of nc.status()) if (s.type === "reconnect") void this.load();
    })().catch(() => {});
    this.checkTimer = setInterval(() => void this.checkProgress(), checkEveryMs);
    this.checkTimer.unref();
  }

  get shops(): ReadonlyMap<string, ShopRecord> {
    return this.shopMap;
  }

  get keys(): ReadonlyMap<string, ApiKeyRecord> {
    return this.keyMap;
  }

  shop(shopId: string): ShopRecord | undefined {
    return this.shopMap.get(shopId);
  }

  /** The key a hash names and its active shop, or undefined (unknown key, revoked, expired, or shop inactive). */
  activeKey(hashHex: string): ActiveKey | undefined {
    const key = this.keyMap.get(hashHex);
    if (!key || !keyInForce(key)) return undefined;
    const shop = this.shopMap.get(key.shopId);
    return shop?.active ? { shop, key } : undefined;
  }

  /** The shop as the bucket holds it right now: a fresh read, not the watched copy. */
  readShop(shopId: string): Promise<ShopRecord | undefined> {
    return this.read(shopKvKey(shopId), ShopRecord);
  }

  /** A key's record as the bucket holds it right now. */
  readKey(hashHex: string): Promise<ApiKeyRecord | undefined> {
    return this.read(apiKeyKvKey(hashHex), ApiKeyRecord);
  }

  /** The watched copy, else a fresh read: a shop created a moment ago can reach a request before it reaches the watch. */
  async shopOrRead(shopId: string): Promise<ShopRecord | undefined> {
    return this.shop(shopId) ?? this.readShop(shopId);
  }

  private async read<S extends z.ZodType>(key: string, schema: S): Promise<z.output<S> | undefined> {
    const entry = await this.kv.get(key);
    return entry?.operation === "PUT" ? schema.safeParse(entry.json()).data : undefined;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.checkTimer);
    this.stopWatch?.();
  }

  /**
   * A watch can stall without ending: when the cluster node serving it dies while this process
   * stays connected to another node. If the bucket's head was ahead of us at the last check and we
   * still have not reached it, or the head went backwards (a recreated bucket), read everything again.
   */
  private async checkProgress(): Promise<void> {
    if (this.stopped) return;
    let head: number;
    try {
      head = (await this.kv.status()).streamInfo.state.last_seq;
    } catch {
      return; // NATS unreachable: the reconnect handler reloads
    }
    const stalled = this.headAtLastCheck > this.seenRevision;
    this.headAtLastCheck = head;
    if (stalled || head < this.seenRevision) {
      this.log.warn({ head, seen: this.seenRevision }, "directory watch behind the bucket; reloading");
      this.headAtLastCheck = 0;
      void this.load();
    }
  }

  /** Reads the bucket into new maps and swaps them in once the snapshot is complete; retried until it works. */
  private async load(): Promise<void> {
    const gen = ++this.generation;
    this.stopWatch?.();
    for (let failures = 1; !this.stopped && gen === this.generation; failures++) {
      try {
        await this.watchInto(gen);
        return;
      } catch (err) {
        const retryInMs = retryDelayMs(WATCH_RETRY, failures);
        this.log.warn({ err: (err as Error).message, attempt: failures, retryInMs }, "directory watch failed; retrying");
        await Bun.sleep(retryInMs);
      }
    }
  }

  private async watchInto(gen: number): Promise<void> {
    const shops = new Map<string, ShopRecord>();
    const keys = new Map<string, ApiKeyRecord>();
    const lastSeq = (await this.kv.status()).streamInfo.state.last_seq;
    const iter = await this.kv.watch({ key: ">" });
    this.seenRevision = 0;
    this.stopWatch = () => iter.stop();
    let markReady!: () => void;
    const ready = new Promise<void>((r) => (markReady = r));
    const swapIn = () => {
      if (gen !== this.generation) return;
      this.shopMap = shops;
      this.keyMap = keys;
      markReady();
    };
    if (lastSeq === 0) swapIn();
    void (async () => {
      for await (const e of iter) {
        if (gen !== this.generation) return;
        this.apply(shops, keys, e.key, e.operation, e.operation === "PUT" ? e.string() : "");
        this.seenRevision = Math.max(this.seenRevision, e.revision);
        if (e.revision >= lastSeq) swapIn();
      }
      // The watch ended without being replaced (consumer lost): read everything again.
      if (gen === this.generation && !this.stopped) void this.load();
    })().catch((err) => {
      this.log.error({ err }, "directory watch ended");
      if (gen === this.generation && !this.stopped) void this.load();
    });
    await ready;
  }

  private apply(shops: Map<string, ShopRecord>, keys: Map<string, ApiKeyRecord>, key: string, op: string, value: string): void {
    const dot = key.indexOf(".");
    const kind = key.slice(0, dot);
    const id = key.slice(dot + 1);
    const map: Map<string, unknown> | undefined = kind === "shops" ? shops : kind === "keys" ? keys : undefined;
    if (!map) return;
    if (op !== "PUT") {
      map.delete(id);
      return;
    }
    const parsed = (kind === "shops" ? ShopRecord : ApiKeyRecord).safeParse(JSON.parse(value));
    if (parsed.success) map.set(id, parsed.data);
    else this.log.error({ key }, "directory entry does not match its contract; ignored");
  }
}
