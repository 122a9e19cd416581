import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { KV } from "@nats-io/kv";
import { DomainError } from "@payaccept/contracts";
import { openIdempotencyBucket } from "@payaccept/platform";
import { startNatsServer, type NatsProcess } from "../infra/launcher/nats-server.ts";
import { IdempotencyClaims } from "../services/gateway/src/idempotency/claims.ts";
import { freePort } from "./harness/stack.ts";

/**
 * The claims every gateway replica makes on the idempotency bucket, against a real nats-server
 * (JetStream KV), with a (monotonic) clock the test moves so that leases run out without waiting.
 */
let nats: NatsProcess;
let nc: NatsConnection;
let bucket: KV;
const clock = { t: 1_000_000 };
const now = () => clock.t;
const LEASE = 5_000;
let n = 0;
const newKey = () => `claims-${++n}-${Bun.randomUUIDv7()}`;

beforeAll(async () => {
  nats = await startNatsServer({ port: await freePort(), dataDir: mkdtempSync(join(tmpdir(), "claims-test-")) });
  nc = await connect({ servers: nats.url });
  bucket = await openIdempotencyBucket(nc, 2000);
});
afterAll(async () => {
  await nc?.close();
  await nats?.stop();
});

test("the first claim holds the key; a twin is busy; the recorded answer is replayed; another fingerprint is a mismatch", async () => {
  const claims = new IdempotencyClaims(bucket, now);
  const key = newKey();
  const first = await claims.claim(key, "fp", LEASE);
  expect(first).toMatchObject({ kind: "claimed", retry: false });
  expect(await claims.claim(key, "fp", LEASE)).toEqual({ kind: "busy" });
  expect(await claims.complete(key, (first as { revision: number }).revision, "fp", 201, '{"id":"p1"}')).toBe(true);
  expect(await claims.claim(key, "fp", LEASE)).toEqual({ kind: "replay", status: 201, body: '{"id":"p1"}' });
  expect(await claims.claim(key, "other", LEASE)).toEqual({ kind: "mismatch" });
});

test("a claim whose lease ran out is taken over as a retry; the old holder can no longer record its answer", async () => {
  const claims = new IdempotencyClaims(bucket, now);
  const key = newKey();
  const dead = (await claims.claim(key, "fp", LEASE)) as { revision: number };
  clock.t += LEASE + 1;
  const taker = await claims.claim(key, "fp", LEASE);
  expect(taker).toMatchObject({ kind: "claimed", retry: true });
  expect(await claims.complete(key, dead.revision, "fp", 201, "old")).toBe(false);
  expect(await claims.complete(key, (taker as { revision: number }).revision, "fp", 201, "new")).toBe(true);
  expect(await claims.claim(key, "fp", LEASE)).toEqual({ kind: "replay", status: 201, body: "new" });
});

test("an attempt without an answer reopens the key: the next one runs again, as a retry", async () => {
  const claims = new IdempotencyClaims(bucket, now);
  const key = newKey();
  const first = (await claims.claim(key, "fp", LEASE)) as { revision: number };
  expect(await claims.reopen(key, first.revision, "fp")).toBe(true);
  expect(await claims.claim(key, "other", LEASE)).toEqual({ kind: "mismatch" });
  expect(await claims.claim(key, "fp", LEASE)).toMatchObject({ kind: "claimed", retry: true });
});

test("twenty claims at once, from as many claimers: exactly one holds the key", async () => {
  const key = newKey();
  const results = await Promise.all(Array.from({ length: 20 }, () => new IdempotencyClaims(bucket, now).claim(key, "fp", LEASE)));
  expect(results.filter((r) => r.kind === "claimed")).toHaveLength(1);
  expect(results.filter((r) => r.kind === "busy")).toHaveLength(19);
});

test("twenty takeovers of one expired claim at once: exactly one wins", async () => {
  const key = newKey();
  await new IdempotencyClaims(bucket, now).claim(key, "fp", LEASE);
  const gateways = Array.from({ length: 20 }, () => new IdempotencyClaims(bucket, now));
  for (const g of gateways) expect(await g.claim(key, "fp", LEASE)).toEqual({ kind: "busy" });
  clock.t += LEASE + 1;
  const results = await Promise.all(gateways.map((g) => g.claim(key, "fp", LEASE)));
  expect(results.filter((r) => r.kind === "claimed")).toEqual([expect.objectContaining({ retry: true })]);
});

test("a lease runs out on the clock of the gateway that meets the claim: one 60 s ahead of the holder (or behind) never takes over a live claim, and takes over a dead one a lease after it first saw it", async () => {
  for (const offsetMs of [60_000, -60_000]) {
    const key = newKey();
    const holder = new IdempotencyClaims(bucket, now);
    const other = new IdempotencyClaims(bucket, () => clock.t + offsetMs);
    expect(await holder.claim(key, "fp", LEASE)).toMatchObject({ kind: "claimed", retry: false });
    // The holder's own record says when its lease ends on its clock: not what the other gateway goes by.
    expect(await other.claim(key, "fp", LEASE)).toEqual({ kind: "busy" });
    clock.t += LEASE - 1;
    expect(await other.claim(key, "fp", LEASE)).toEqual({ kind: "busy" });
    // The holder died: a lease after the other first saw its claim, it is taken over, as a retry.
    clock.t += 2;
    expect(await other.claim(key, "fp", LEASE)).toMatchObject({ kind: "claimed", retry: true });
  }
});

test("without the bucket the claim is UNAVAILABLE (the middleware then runs the request on the service's own key)", async () => {
  const broken = new IdempotencyClaims({
    create: () => Promise.reject(new Error("timeout")),
    update: () => Promise.reject(new Error("timeout")),
    get: () => Promise.reject(new Error("timeout")),
  });
  const err = await broken.claim(newKey(), "fp", LEASE).catch((e: unknown) => e);
  expect(err).toEqual(new DomainError("SERVICE_UNAVAILABLE", { service: "idempotency" }));
});

test("a bucket that refuses writes with no key in the way (no quorum) is UNAVAILABLE, not a twin in flight", async () => {
  const readOnly = new IdempotencyClaims({
    create: () => Promise.reject(new Error("no quorum")),
    update: () => Promise.reject(new Error("no quorum")),
    get: () => Promise.resolve(null),
  });
  const err = await readOnly.claim(newKey(), "fp", LEASE).catch((e: unknown) => e);
  expect(err).toEqual(new DomainError("SERVICE_UNAVAILABLE", { service: "idempotency" }));
});
