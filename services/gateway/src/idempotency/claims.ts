import { DomainError, IdempotencyRecord } from "@payaccept/contracts";
import type { KV, KvEntry } from "@nats-io/kv";

/** What a request with an Idempotency-Key may do. */
export type Claim =
  /** It holds the key at `revision`; `retry` when an earlier attempt may already have acted. */
  | { kind: "claimed"; revision: number; retry: boolean }
  | { kind: "replay"; status: number; body: string }
  /** The key was first used with another method, path or body. */
  | { kind: "mismatch" }
  /** A twin holds the key and its lease has not run out. */
  | { kind: "busy" };

/** A key's record read without claiming it; `unanswered` when its attempt ended without an answer or its holder's lease ran out. */
export type Recorded = Exclude<Claim, { kind: "claimed" }> | { kind: "unanswered" };

/** The part of a KV bucket the claims use (create, revision-checked update, get). */
export type ClaimBucket = Pick<KV, "create" | "update" | "get">;

const enc = new TextEncoder();
const encode = (r: IdempotencyRecord) => enc.encode(JSON.stringify(r));
/** Races lost in a row before giving up with a 409: each loss means another request moved the key. */
const MAX_RACES = 3;
/** Pending claims remembered at most; beyond it the oldest sightings are forgotten (a takeover then waits a lease more). */
const MAX_SIGHTINGS = 100_000;

/**
 * The idempotency keys of the API in a NATS KV bucket shared by every gateway replica. A key is
 * claimed with an atomic create (the first request) or a revision-checked update (taking over a
 * claim whose lease ran out, or one whose last attempt ended without a final answer); its answer
 * is recorded with a revision-checked update, so a claimer that lost its key to a takeover never
 * overwrites the new holder's record.
 *
 * Whether a lease ran out is decided on this gateway's own monotonic clock, never by comparing
 * the holder's clock time with this one's: a claim is taken over once this gateway has seen that
 * very claim (its revision) pending for a whole lease, or made it itself that long ago. Gateways
 * whose clocks differ thus never take over a live claim (with the lease's 1 s margin, one 2 s ahead
 * did), at the cost of a dead gateway's claim waiting up to a lease after a survivor first meets it.
 */
export class IdempotencyClaims {
  /** When this gateway first saw (or made) each pending claim, by `<key>@<revision>`: monotonic ms, with when to forget it. */
  private readonly sightings = new Map<string, { at: number; forgetAt: number }>();

  /**
   * `openBucket` opens the bucket again (creating it if it is gone): when NATS comes back without its
   * store, the bucket the gateway opened at start no longer exists. `now` is monotonic (a test moves it).
   */
  constructor(
    private bucket: ClaimBucket,
    private readonly now: () => number = () => performance.now(),
    private readonly openBucket?: () => Promise<ClaimBucket>,
  ) {}

  async claim(key: string, fingerprint: string, leaseMs: number): Promise<Claim> {
    // leaseUntil is written for gateways of an earlier release during an upgrade, which compare it
    // with their clock; this release decides by its own sightings (leaseRanOut).
    const pending = () => encode({ state: "pending", fingerprint, leaseUntil: Date.now() + leaseMs });
    for (let race = 0; race < MAX_RACES; race++) {
      const created = await this.unavailableOnError(() => this.bucket.create(key, pending()).catch(() => undefined));
      if (created !== undefined) return this.claimed(key, created, leaseMs, false);
      const entry = await this.unavailableOnError(() => this.bucket.get(key));
      // Deleted or expired since the create failed: try to create it again. A create that keeps
      // failing with no key in its way is a bucket that cannot take writes (no quorum), not a twin.
      if (!entry || entry.operation !== "PUT") {
        if (race === MAX_RACES - 1) throw new DomainError("SERVICE_UNAVAILABLE", { service: "idempotency" });
        continue;
      }
      const seen = this.judge(key, entry, fingerprint, leaseMs);
      if (seen.kind !== "unanswered") return seen;
      const taken = await this.bucket.update(key, pending(), entry.revision).catch(() => undefined);
      if (taken !== undefined) return this.claimed(key, taken, leaseMs, true);
    }
    return { kind: "busy" };
  }

  /**
   * What the bucket holds for a key, without claiming it (a buyer's create's key, which gateways
   * of an earlier release kept here; docs/gateway.md, "Upgrading"); undefined for none.
   */
  async recorded(key: string, fingerprint: string, leaseMs: number): Promise<Recorded | undefined> {
    const entry = await this.unavailableOnError(() => this.bucket.get(key));
    return entry?.operation === "PUT" ? this.judge(key, entry, fingerprint, leaseMs) : undefined;
  }

  private judge(key: string, entry: KvEntry, fingerprint: string, leaseMs: number): Recorded {
    const record = IdempotencyRecord.parse(entry.json());
    if (record.fingerprint !== fingerprint) return { kind: "mismatch" };
    if (record.state === "done") return { kind: "replay", status: record.status, body: record.body };
    if (record.state === "pending" && !this.leaseRanOut(key, entry.revision, leaseMs)) return { kind: "busy" };
    return { kind: "unanswered" };
  }

  /** The final answer, replayed from now on; false when the key was taken over meanwhile (or the bucket failed). */
  complete(key: string, revision: number, fingerprint: string, status: number, body: string): Promise<boolean> {
    return this.write(key, revision, { state: "done", fingerprint, status, body });
  }

  /** No final answer (5xx): the next request with the key executes again, knowing this one may have acted. */
  reopen(key: string, revision: number, fingerprint: string): Promise<boolean> {
    return this.write(key, revision, { state: "retry", fingerprint });
  }

  private write(key: string, revision: number, record: IdempotencyRecord): Promise<boolean> {
    this.sightings.delete(`${key}@${revision}`);
    return this.bucket.update(key, encode(record), revision).then(
      () => true,
      () => false,
    );
  }

  private claimed(key: string, revision: number, leaseMs: number, retry: boolean): Claim {
    this.sighted(`${key}@${revision}`, leaseMs);
    return { kind: "claimed", revision, retry };
  }

  /** Has this gateway seen this pending claim for a whole lease? The first sighting starts the count. */
  private leaseRanOut(key: string, revision: number, leaseMs: number): boolean {
    const seen = this.sightings.get(`${key}@${revision}`);
    if (seen === undefined) {
      this.sighted(`${key}@${revision}`, leaseMs);
      return false;
    }
    return this.now() - seen.at > leaseMs;
  }

  private sighted(claim: string, leaseMs: number): void {
    const now = this.now();
    // In sighting order: the first ones are the oldest. Kept two leases, long enough to decide.
    for (const [old, { forgetAt }] of this.sightings) {
      if (forgetAt > now && this.sightings.size < MAX_SIGHTINGS) break;
      this.sightings.delete(old);
    }
    this.sightings.set(claim, { at: now, forgetAt: now + 2 * leaseMs });
  }

  /**
   * UNAVAILABLE when the bucket cannot be reached; before that the bucket is opened again once, so
   * a bucket lost with NATS's store is recreated. The middleware then runs the request on the
   * owning service's own key.
   */
  private async unavailableOnError<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch {
      try {
        if (!this.openBucket) throw new Error("no way to open the bucket again");
        this.bucket = await this.openBucket();
        return await fn();
      } catch {
        throw new DomainError("SERVICE_UNAVAILABLE", { service: "idempotency" });
      }
    }
  }
}
