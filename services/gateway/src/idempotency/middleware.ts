import { DomainError, IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER, IdempotencyKey, rpcs } from "@payaccept/contracts";
import { call, jsonError, sha256Hex, type NatsConnection } from "@payaccept/platform";
import type { Context } from "hono";
import { boundedBy } from "../http/bounded.ts";
import type { GatewayEnv } from "../http/env.ts";
import { idempotencyOutcomes } from "../metrics.ts";
import type { IdempotencyClaims, Recorded } from "./claims.ts";

/** Room for clock differences between replicas and for recording the answer, beyond the calls themselves. */
const LEASE_MARGIN_MS = 1000;

/**
 * How long a request holds its key before a twin may take it over: two calls of the route's bound
 * (create looks the payment up after a conflict) and a margin. A holder that is still alive has
 * answered by then, so a takeover only ever follows a gateway that died.
 */
export const leaseFor = (callTimeoutMs: number) => 2 * callTimeoutMs + LEASE_MARGIN_MS;

/**
 * JSON with its object keys sorted: the same body however a client orders or spaces it. Written
 * with a stack of its own, not by recursion: the body's unknown fields are not validated, and one
 * nested 30,000 deep overflowed the call stack (a 500, issue 20).
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  // What is left to write, last first: a value, or text (brackets, commas, keys) as it stands.
  const todo: ({ text: string } | { value: unknown })[] = [{ value }];
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    if ("text" in next) {
      out.push(next.text);
      continue;
    }
    const v = next.value;
    if (v === null || typeof v !== "object") {
      out.push(JSON.stringify(v));
      continue;
    }
    const array = Array.isArray(v);
    const keys = array ? undefined : Object.keys(v).sort();
    const items: unknown[] = array ? v : keys!.map((k) => (v as Record<string, unknown>)[k]);
    out.push(array ? "[" : "{");
    todo.push({ text: array ? "]" : "}" });
    for (let i = items.length - 1; i >= 0; i--) {
      todo.push({ value: items[i] });
      if (keys) todo.push({ text: `${JSON.stringify(keys[i])}:` });
      if (i > 0) todo.push({ text: "," });
    }
  }
  return out.join("");
}

/** The key's name in the bucket: the shop's and the merchant's key together, hashed (any length, no forbidden characters). */
export const bucketKey = (shopId: string, key: string) => sha256Hex(`${shopId}\n${key}`);

/** What makes two requests the same request under one key: method, path and the body's canonical JSON. */
export const requestFingerprint = (method: string, path: string, canonicalBody: string) => sha256Hex(`${method} ${path}\n${canonicalBody}`);

/** The body a route has read, as canonical JSON (jsonBody leaves it as `body`); a route without one has "". */
const bodyOf = (c: Context<GatewayEnv>): string => {
  const body = c.get("body");
  return body === undefined ? "" : canonicalJson(body);
};

/**
 * Marks a key kept in the bucket in payments' table of keys, where a create keeps its own
 * (rpcs.payments.noteKey): false when the key was first used with another request there (a create's
 * key reused on another route, or the other way round). Payments out of reach loses only that
 * check, not the request.
 */
async function markedInPayments(c: Context<GatewayEnv>, nc: NatsConnection, key: string, fingerprint: string, timeoutMs: number): Promise<boolean> {
  try {
    await call(nc, rpcs.payments.noteKey, { shopId: c.get("shop").shopId, idempotency: { key, fingerprint } }, timeoutMs, { requestId: c.get("requestId") });
    return true;
  } catch (err) {
    if (err instanceof DomainError && err.reason === "IDEMPOTENCY_KEY_REUSED") return false;
    if (!(err instanceof DomainError && err.code === "UNAVAILABLE")) throw err;
    c.get("log").warn({ idempotencyKey: key }, "payments unavailable; the key is not checked against creates' keys");
    return true;
  }
}

/** The operation's answer: its handler's response, or its error's in the Error shape. */
export type Answer = (c: Context<GatewayEnv>) => Promise<Response>;

/**
 * Idempotency-Key on a POST of the API (docs/gateway.md, "Idempotency keys"). Runs after
 * authentication, the limits and validation (a refused request never touches a key), around the
 * operation's answer. Without the header nothing changes. With it: the first request claims the
 * key for the shop and its answer is stored (2xx and 4xx); a repeat with the same method, path
 * and body replays that answer with Idempotent-Replayed: true, another one is 422, and a twin
 * whose first request is still running is 409. A 5xx is not an answer: the next request executes
 * again, and the handler sees `idempotency.retry` so that it can recognise its own earlier work.
 * Where `inService` says the owning service keeps the key with its write (a buyer's create, in
 * payments' transaction), it only checks the key and hands it to the handler.
 */
export function idempotent(
  claims: IdempotencyClaims,
  nc: NatsConnection,
  callTimeoutMs: number,
  inService?: (c: Context<GatewayEnv>) => boolean,
): (c: Context<GatewayEnv>, answer: Answer) => Promise<Response> {
  const leaseMs = leaseFor(callTimeoutMs);
  return async (c, answer) => {
    const key = c.req.header(IDEMPOTENCY_KEY_HEADER);
    if (key === undefined) return answer(c);
    if (!IdempotencyKey.safeParse(key).success) return jsonError(c, new DomainError("IDEMPOTENCY_KEY_INVALID", { header: IDEMPOTENCY_KEY_HEADER }));
    const fingerprint = requestFingerprint(c.req.method, c.req.path, bodyOf(c));
    if (inService?.(c)) {
      c.set("idempotency", { key, fingerprint, retry: false, inService: true });
      return answer(c);
    }
    if (!(await markedInPayments(c, nc, key, fingerprint, callTimeoutMs))) return answerRecorded(c, key, { kind: "mismatch" });
    const kvKey = bucketKey(c.get("shop").shopId, key);
    // A claim abandoned at the bound may still land: it is a pending claim like a dead gateway's,
    // taken over after its lease.
    const claim = await boundedBy(claims.claim(kvKey, fingerprint, leaseMs), callTimeoutMs, "idempotency").catch((err) => {
      if (!(err instanceof DomainError && err.code === "UNAVAILABLE")) throw err;
      return undefined;
    });
    if (claim === undefined) {
      // The bucket is unreachable (JetStream without a quorum): the request runs unrecorded, as a
      // retry, guarded by the owning service's own key (docs/gateway.md, "Idempotency keys").
      idempotencyOutcomes.inc({ outcome: "unguarded" });
      c.get("log").warn({ idempotencyKey: key }, "idempotency store unavailable; the request runs on the service's own key");
      c.set("idempotency", { key, fingerprint, retry: true, inService: false });
      return answer(c);
    }
    if (claim.kind !== "claimed") return answerRecorded(c, key, claim);
    idempotencyOutcomes.inc({ outcome: claim.retry ? "retry" : "claimed" });
    c.set("idempotency", { key, fingerprint, retry: claim.retry, inService: false });
    const res = await answer(c);
    const status = res.status;
    const recorded =
      status >= 500
        ? await claims.reopen(kvKey, claim.revision, fingerprint)
        : await claims.complete(kvKey, claim.revision, fingerprint, status, await res.clone().text());
    if (!recorded) c.get("log").warn({ status }, "idempotency key not recorded: taken over meanwhile or the bucket failed");
    return res;
  };
}

/** A stored answer, byte for byte, marked as a replay. */
export function replay(c: Context<GatewayEnv>, status: number, body: string): Response {
  c.get("log").add({ idempotentReplay: true });
  return c.body(body, status as 200, { "Content-Type": "application/json", [IDEMPOTENT_REPLAYED_HEADER]: "true" });
}

/** What a key's record in the bucket answers without running the request: its replay, 422 for another request, 409 while its first runs. */
export function answerRecorded(c: Context<GatewayEnv>, key: string, recorded: Exclude<Recorded, { kind: "unanswered" }>): Response {
  idempotencyOutcomes.inc({ outcome: recorded.kind });
  switch (recorded.kind) {
    case "mismatch":
      return jsonError(c, new DomainError("IDEMPOTENCY_KEY_REUSED", { header: IDEMPOTENCY_KEY_HEADER, key }));
    case "busy":
      return jsonError(c, new DomainError("IDEMPOTENCY_KEY_IN_PROGRESS", { header: IDEMPOTENCY_KEY_HEADER, key }), { "Retry-After": "1" });
    case "replay":
      return replay(c, recorded.status, recorded.body);
  }
}
