import type { KV } from "@nats-io/kv";
import { ApiKeyRecord, ShopRecord } from "@payaccept/contracts";
import type { Logger } from "./log.ts";

/**
 * An in-memory copy of the directory bucket, kept current by a KV watch: a revoked key or a
 * deactivated shop stops working on every replica as soon as the change is published.
 * ready resolves once the snapshot present at start has been read; after that a miss is authoritative.
 */
export class DirectoryCache {
  readonly shops = new Map<string, ShopRecord>();
  readonly keys = new Map<string, ApiKeyRecord>();
  readonly ready: Promise<void>;
  private stopWatch: (() => void) | undefined;

  constructor(
    private readonly kv: KV,
    private readonly log: Logger,
  ) {
    this.ready = this.start();
  }

  shop(shopId: string): ShopRecord | undefined {
    return this.shops.get(shopId);
  }

  /** The active shop a key hash belongs to, or undefined (unknown key, revoked, or shop inactive). */
  shopForKeyHash(hashHex: string): ShopRecord | undefined {
    const k = this.keys.get(hashHex);
    if (!k) return undefined;
    const shop = this.shops.get(k.shopId);
    return shop?.active ? shop : undefined;
  }

  stop(): void {
    this.stopWatch?.();
  }

  private async start(): Promise<void> {
    const status = await this.kv.status();
    const lastSeq = status.streamInfo.state.last_seq;
    let markReady!: () => void;
    const ready = new Promise<void>((r) => (markReady = r));
    if (lastSeq === 0) markReady();
    const iter = await this.kv.watch({ key: ">" });
    this.stopWatch = () => iter.stop();
    (async () => {
      for await (const e of iter) {
        this.apply(e.key, e.operation, e.operation === "PUT" ? e.string() : "");
        if (e.revision >= lastSeq) markReady();
      }
    })().catch((err) => this.log.error({ err }, "directory watch ended"));
    return ready;
  }

  private apply(key: string, op: string, value: string): void {
    const dot = key.indexOf(".");
    const kind = key.slice(0, dot);
    const id = key.slice(dot + 1);
    const map: Map<string, unknown> | undefined = kind === "shops" ? this.shops : kind === "keys" ? this.keys : undefined;
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
