import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Kvm, type KV } from "@nats-io/kv";
import { ErrorBody, IDEMPOTENCY_BUCKET, IdempotencyRecord, operations, Payment, Refund, rpcs } from "@payaccept/contracts";
import type { ServiceProcess } from "../infra/launcher/supervisor.ts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { eventually, Stack, type ShopCreated, STACK_START_MS } from "./harness/stack.ts";
import { paidSandbox } from "./payments-fixtures.ts";
import { bucketKey, canonicalJson, requestFingerprint } from "../services/gateway/src/idempotency/middleware.ts";

/**
 * The gateway's Idempotency-Key (records in a NATS KV bucket shared by its replicas) in front of
 * payments, once with payments on SQLite and once on PostgreSQL. The PostgreSQL run has the cases
 * whose outcome rests on payments' store: the creates, cancels and refunds a key guards, the
 * orderId conflict that answers a retry whose first attempt committed, and the 20-at-once races.
 * The others stay on SQLite only (see each): they are settled in the gateway and NATS before
 * payments' store is reached, so a second engine would add only their seconds of waiting.
 */
// Each test starts or stops real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(90_000);

describe.each(ENGINES)("Idempotency-Key with payments on %s", (engine) => {
  let stack: Stack;
  let shop: ShopCreated;
  let bucket: KV;
  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "payments", "gateway"], postgres: engine === "postgres" });
    shop = await stack.createShop({ name: "Idempotent shop", sandbox: true });
    bucket = await new Kvm(stack.nc).open(IDEMPOTENCY_BUCKET);
  }, STACK_START_MS);
  afterAll(() => stack.stop());

  let n = 0;
  const orderId = () => `idem-${Date.now()}-${++n}`;
  const newKey = () => `key-${Bun.randomUUIDv7()}`;
  const post = (path: string, key: string | undefined, json?: unknown, base = stack.gateway) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { "X-Api-Key": shop.apiKey, ...(key === undefined ? {} : { "Idempotency-Key": key }), ...(json === undefined ? {} : { "Content-Type": "application/json" }) },
      body: json === undefined ? undefined : typeof json === "string" ? json : JSON.stringify(json),
      signal: AbortSignal.timeout(30_000),
    });
  const create = (key: string | undefined, json: unknown, base?: string) => post("/v1/payments", key, json, base);

  /** The key's record as the gateway replicas share it. */
  async function recordOf(key: string) {
    const entry = await bucket.get(bucketKey(shop.shopId, key));
    return entry?.operation === "PUT" ? IdempotencyRecord.parse(entry.json()) : undefined;
  }
  async function errorOf(res: Response, status: number): Promise<ErrorBody> {
    const body = ErrorBody.parse(await res.json());
    expect({ status: res.status, statusCode: body.statusCode }).toEqual({ status, statusCode: status });
    return body;
  }
  const payments = () => stack.service("payments").proc!;
  const lookup = (id: string) => stack.call(rpcs.payments.lookup, { shopId: shop.shopId, orderId: id });
  /** Resolves once NATS has carried the gateway's keyed create of the order `times` times (a plain subscriber gets a copy of every request). */
  async function createSent(order: string, times = 1): Promise<() => Promise<void>> {
    const sub = stack.nc.subscribe(rpcs.payments.createKeyed.subject, { timeout: 30_000 });
    await stack.nc.flush();
    return async () => {
      let seen = 0;
      for await (const m of sub) if (m.json<{ request: { orderId: string } }>().request.orderId === order && ++seen === times) break;
      sub.unsubscribe();
    };
  }

  describe("Idempotency-Key on POST /v1/payments", () => {
    test("the same key and body replay the first answer, byte for byte, with Idempotent-Replayed", async () => {
      const key = newKey();
      const body = { orderId: orderId(), amountKopecks: 15000, description: "Beans", metadata: { cart: [1, 2] } };
      const first = await create(key, body);
      expect(first.status).toBe(201);
      expect(first.headers.get("Idempotent-Replayed")).toBeNull();
      const firstText = await first.text();
      // The same body with its keys in another order and other spacing is the same request.
      const reordered = `{ "metadata": {"cart":[1,2]}, "description": "Beans", "amountKopecks": 15000, "orderId": "${body.orderId}" }`;
      for (const again of [await create(key, body), await create(key, reordered)]) {
        expect(again.status).toBe(201);
        expect(again.headers.get("Idempotent-Replayed")).toBe("true");
        expect(await again.text()).toBe(firstText);
      }
      const id = Payment.parse(JSON.parse(firstText)).id;
      expect((await lookup(body.orderId)).id).toBe(id);
      // The payment moves on; the key still answers what the create answered.
      expect((await post(`/v1/payments/${id}/cancel`, undefined)).status).toBe(200);
      const later = await create(key, body);
      expect({ status: later.status, replayed: later.headers.get("Idempotent-Replayed"), text: await later.text() }).toEqual({ status: 201, replayed: "true", text: firstText });
      // The create's key is kept by payments, never in the gateway's bucket.
      expect(await recordOf(key)).toBeUndefined();
    });

    test("the same key with another body or on another route is a 422; nothing is created", async () => {
      const key = newKey();
      const body = { orderId: orderId(), amountKopecks: 15000 };
      const p = Payment.parse(await (await create(key, body)).json());
      const otherOrder = orderId();
      const mismatch = await errorOf(await create(key, { orderId: otherOrder, amountKopecks: 15000 }), 422);
      expect(mismatch.error).toBe("Unprocessable Entity");
      expect(String(mismatch.message)).toContain("already used with another request");
      await errorOf(await post(`/v1/payments/${p.id}/cancel`, key), 422);
      await expect(lookup(otherOrder)).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect((await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: p.id })).status).toBe("CREATED");
    });

    test("a create's refusal (the orderId taken) is its key's answer: replayed byte for byte", async () => {
      const body = { orderId: orderId(), amountKopecks: 15000 };
      expect((await create(undefined, body)).status).toBe(201);
      const key = newKey();
      const first = await create(key, body);
      const text = await first.text();
      expect({ status: first.status, replayed: first.headers.get("Idempotent-Replayed"), code: JSON.parse(text).code }).toEqual({ status: 409, replayed: null, code: "ORDER_ID_TAKEN" });
      const again = await create(key, body);
      expect({ status: again.status, replayed: again.headers.get("Idempotent-Replayed"), text: await again.text() }).toEqual({ status: 409, replayed: "true", text });
    });

    test("a key that is not 1–64 printable ASCII characters is a 400; without a key nothing changes", async () => {
      for (const bad of ["", "k".repeat(65)]) {
        const body = await errorOf(await create(bad, { orderId: orderId(), amountKopecks: 15000 }), 400);
        expect(String(body.message)).toContain("Idempotency-Key");
      }
      const body = { orderId: orderId(), amountKopecks: 15000 };
      expect((await create(undefined, body)).status).toBe(201);
      expect((await create(undefined, body)).status).toBe(409);
    });

    test("cancel: a refusal (4xx) is an answer and is replayed too; another payment's cancel with the key is a 422", async () => {
      const key = newKey();
      const unknown = Bun.randomUUIDv7();
      await errorOf(await post(`/v1/payments/${unknown}/cancel`, key), 404);
      const again = await post(`/v1/payments/${unknown}/cancel`, key);
      expect(again.headers.get("Idempotent-Replayed")).toBe("true");
      await errorOf(again, 404);
      // The cancel's key on a create: another request, though creates keep their keys elsewhere.
      const order = orderId();
      await errorOf(await create(key, { orderId: order, amountKopecks: 15000 }), 422);
      await expect(lookup(order)).rejects.toMatchObject({ code: "NOT_FOUND" });
      const p = Payment.parse(await (await create(newKey(), { orderId: orderId(), amountKopecks: 15000 })).json());
      const cancelKey = newKey();
      const canceled = await post(`/v1/payments/${p.id}/cancel`, cancelKey);
      expect(Payment.parse(await canceled.json()).status).toBe("CANCELED");
      const replayed = await post(`/v1/payments/${p.id}/cancel`, cancelKey);
      expect({ status: replayed.status, replayed: replayed.headers.get("Idempotent-Replayed") }).toEqual({ status: 200, replayed: "true" });
    });
  });

  // Refused by the gateway before any record or call.
  sqliteRunOnly(engine, () => {
    describe("every POST of the API", () => {
      /** A valid body where a route reads one; the others ignore it. */
      const validBodies: Record<string, unknown> = {
        "/v1/payments": { orderId: "every-post", amountKopecks: 15000 },
        "/v1/payouts": { amountKopecks: 100 },
        "/v1/sandbox/payments/{id}/outcome": { outcome: "SUCCESS" },
      };
      const posts = Object.values(operations).filter((op) => op.method === "post").map((op) => op.path);

      test.each(posts)("%s reads Idempotency-Key (a malformed one is refused before anything runs)", async (path) => {
        const concrete = path.replace(/\{[^}]+\}/g, () => Bun.randomUUIDv7());
        const body = await errorOf(await post(concrete, "k".repeat(65), validBodies[path] ?? {}), 400);
        expect(body.message).toBe("Idempotency-Key: must be 1 to 64 printable ASCII characters");
      });
    });
  });

  // The bucket's record is read by the gateway after payments' refusal: the engine makes no difference.
  sqliteRunOnly(engine, () => {
    describe("a retry of a create first sent through a gateway of the earlier release, which kept creates' keys in the bucket", () => {
      /** The payment such a gateway made through rpcs.payments.create, and its key's record as it left it in the bucket. */
      async function createdByEarlierRelease(key: string, body: { orderId: string; amountKopecks: number }, state: "done" | "pending" | "retry") {
        const made = await stack.call(rpcs.payments.create, { shopId: shop.shopId, request: body });
        const fingerprint = requestFingerprint("POST", "/api/v1/payments", canonicalJson(body));
        const records: Record<typeof state, IdempotencyRecord> = {
          done: { state: "done", fingerprint, status: 201, body: JSON.stringify(made) },
          pending: { state: "pending", fingerprint, leaseUntil: Date.now() + 60_000 },
          retry: { state: "retry", fingerprint },
        };
        await bucket.put(bucketKey(shop.shopId, key), JSON.stringify(records[state]));
        return made;
      }

      test("replays the answer that gateway recorded, byte for byte, every time; another request under the key is a 422", async () => {
        const key = newKey();
        const body = { orderId: orderId(), amountKopecks: 15000 };
        const first = JSON.stringify(await createdByEarlierRelease(key, body, "done"));
        // The second one meets payments' own record of the refusal, which the bucket's answer overrides too.
        for (const retry of [await create(key, body), await create(key, body)]) {
          expect({ status: retry.status, replayed: retry.headers.get("Idempotent-Replayed"), text: await retry.text() }).toEqual({ status: 201, replayed: "true", text: first });
        }
        expect((await errorOf(await create(key, { ...body, amountKopecks: 16000 }), 422)).code).toBe("IDEMPOTENCY_KEY_REUSED");
      });

      test("while that gateway's create still holds the key the retry is a 409 with Retry-After; after an attempt without an answer, the payment it made", async () => {
        const running = newKey();
        const body = { orderId: orderId(), amountKopecks: 15000 };
        await createdByEarlierRelease(running, body, "pending");
        const busy = await create(running, body);
        expect(busy.headers.get("Retry-After")).toBe("1");
        expect((await errorOf(busy, 409)).code).toBe("IDEMPOTENCY_KEY_IN_PROGRESS");

        const unanswered = newKey();
        const lost = { orderId: orderId(), amountKopecks: 17000 };
        const made = await createdByEarlierRelease(unanswered, lost, "retry");
        const retry = await create(unanswered, lost);
        expect(retry.status).toBe(201);
        expect(Payment.parse(await retry.json())).toMatchObject({ id: made.id, orderId: lost.orderId, status: "CREATED" });
      });
    });
  });

  // A buyer's create keeps its key in payments, in the payment's own transaction (docs/gateway.md,
  // "Idempotency keys"): the bucket never holds it, and no step lies between the payment and its record.
  describe("in flight, timeouts and crashes", () => {
    test("a twin sent while the first is in flight waits for its commit and replays its answer; one payment", async () => {
      const key = newKey();
      const body = { orderId: orderId(), amountKopecks: 15000 };
      const sent = await createSent(body.orderId, 2);
      payments().kill("SIGSTOP");
      let first: Promise<Response>, twin: Promise<Response>;
      try {
        first = create(key, body);
        twin = create(key, body);
        await sent();
      } finally {
        payments().kill("SIGCONT");
      }
      const answers = await Promise.all([first, twin].map(async (r) => {
        const res = await r;
        return { status: res.status, replayed: res.headers.get("Idempotent-Replayed"), text: await res.text() };
      }));
      expect(answers.map((a) => a.status)).toEqual([201, 201]);
      expect(answers.filter((a) => a.replayed === "true")).toHaveLength(1);
      expect(answers.filter((a) => a.replayed === null)).toHaveLength(1);
      expect(answers[0]!.text).toBe(answers[1]!.text);
      expect((await lookup(body.orderId)).id).toBe(Payment.parse(JSON.parse(answers[0]!.text)).id);
      expect(await recordOf(key)).toBeUndefined();
    });

    test("a 503 is not stored: the retry runs again; the request that timed out is dropped, never acted on later", async () => {
      const key = newKey();
      const body = { orderId: orderId(), amountKopecks: 15000, description: "late" };
      payments().kill("SIGSTOP");
      try {
        await errorOf(await create(key, body), 503);
        // Past the request's deadline (NATS_REQUEST_TIMEOUT_MS), so payments finds it expired when it wakes.
        await Bun.sleep(500);
      } finally {
        payments().kill("SIGCONT");
      }
      await eventually(() => stack.log("payments").includes("arrived after its caller's deadline"));
      await errorOf(await fetch(`${stack.url("gateway")}/api/v1/payments?orderId=${body.orderId}`, { headers: { "X-Api-Key": shop.apiKey } }), 404);
      const retry = await create(key, body);
      expect(retry.status).toBe(201);
      expect(retry.headers.get("Idempotent-Replayed")).toBeNull();
      expect(Payment.parse(await retry.json()).id).toBe((await lookup(body.orderId)).id);
    });

    test("payments SIGKILLed with a keyed create in hand: nothing was kept, and the retry makes the one payment", async () => {
      const key = newKey();
      const body = { orderId: orderId(), amountKopecks: 15000, description: "payments died" };
      const sent = await createSent(body.orderId);
      payments().kill("SIGSTOP");
      const first = create(key, body);
      await sent();
      await stack.service("payments").stop("SIGKILL");
      await errorOf(await first, 503);
      stack.service("payments").start();
      await stack.service("payments").waitReady();
      const retry = await eventually(async () => {
        const res = await create(key, body);
        return res.status !== 503 && res;
      });
      expect({ status: retry.status, replayed: retry.headers.get("Idempotent-Replayed") }).toEqual({ status: 201, replayed: null });
      const text = await retry.text();
      expect(Payment.parse(JSON.parse(text)).id).toBe((await lookup(body.orderId)).id);
      const again = await create(key, body);
      expect({ status: again.status, replayed: again.headers.get("Idempotent-Replayed"), text: await again.text() }).toEqual({ status: 201, replayed: "true", text });
    });

    test("the gateway SIGKILLed after sending a keyed create: payments committed it with its answer, which the restarted gateway replays at once", async () => {
      const key = newKey();
      const body = { orderId: orderId(), amountKopecks: 15000 };
      const sent = await createSent(body.orderId);
      payments().kill("SIGSTOP");
      let inFlight: Promise<unknown>;
      try {
        inFlight = create(key, body).then((r) => r.status, () => "connection lost");
        await sent();
        await stack.service("gateway").stop("SIGKILL");
      } finally {
        payments().kill("SIGCONT");
      }
      expect(await inFlight).toBe("connection lost");
      const made = await eventually(() => lookup(body.orderId));
      stack.service("gateway").start();
      await stack.service("gateway").waitReady();
      const replay = await create(key, body);
      expect({ status: replay.status, replayed: replay.headers.get("Idempotent-Replayed") }).toEqual({ status: 201, replayed: "true" });
      const text = await replay.text();
      expect(Payment.parse(JSON.parse(text))).toMatchObject({ id: made.id, status: "CREATED" });
      // Still the first answer once the payment has moved on.
      expect(Payment.parse(await (await post(`/v1/payments/${made.id}/cancel`, undefined)).json()).status).toBe("CANCELED");
      const later = await create(key, body);
      expect({ status: later.status, text: await later.text() }).toEqual({ status: 201, text });
      const metrics = await (await fetch(`${stack.url("gateway")}/metrics`)).text();
      expect(metrics).toMatch(/gateway_idempotency_requests_total\{outcome="replay"\} [1-9]/);
    });
  });

  describe("several gateway replicas", () => {
    let replica: ServiceProcess;
    beforeAll(async () => {
      replica = await stack.addReplica("gateway");
    }, STACK_START_MS);

    test("a key recorded by one replica is replayed by the other, also after both restart", async () => {
      const key = newKey();
      const body = { orderId: orderId(), amountKopecks: 15000 };
      const first = await create(key, body);
      const text = await first.text();
      await stack.restart("gateway");
      await replica.stop("SIGKILL");
      replica.start();
      await replica.waitReady();
      for (const base of [stack.gateway, `${replica.url}/api`]) {
        const again = await create(key, body, base);
        expect({ status: again.status, replayed: again.headers.get("Idempotent-Replayed"), text: await again.text() }).toEqual({ status: 201, replayed: "true", text });
      }
    });

    test("20 creates with one key at once, over both replicas: one payment, every other answer its replay", async () => {
      const key = newKey();
      const body = { orderId: orderId(), amountKopecks: 15000 };
      const bases = [stack.gateway, `${replica.url}/api`];
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => create(key, body, bases[i % 2])));
      const outcomes = await Promise.all(results.map(async (r) => ({ status: r.status, replayed: r.headers.get("Idempotent-Replayed"), body: await r.json() })));
      const made = outcomes.filter((o) => o.status === 201 && o.replayed === null);
      expect(made).toHaveLength(1);
      const id = Payment.parse(made[0]!.body).id;
      // Each twin waits for the first one's commit in payments and replays it: none is a 409.
      for (const o of outcomes) expect({ status: o.status, id: o.body.id }).toEqual({ status: 201, id });
      expect((await lookup(body.orderId)).id).toBe(id);
    });

    test("the same key sent 20 times at once to POST /v1/payments/{id}/refunds, over both replicas: one refund", async () => {
      const paid = await paidSandbox(stack, shop.shopId, { amountKopecks: 30000 });
      const key = newKey();
      const bases = [stack.gateway, `${replica.url}/api`];
      const refund = (base: string) => post(`/v1/payments/${paid.id}/refunds`, key, { amountKopecks: 1000, reason: "one cup back" }, base);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => refund(bases[i % 2]!)));
      const outcomes = await Promise.all(results.map(async (r) => ({ status: r.status, body: await r.json() })));
      expect(outcomes.every((o) => o.status === 201 || o.status === 409)).toBe(true);
      const ids = new Set(outcomes.filter((o) => o.status === 201).map((o) => Refund.parse(o.body).id));
      const later = await refund(stack.gateway);
      expect(later.headers.get("Idempotent-Replayed")).toBe("true");
      const made = Refund.parse(await later.json());
      expect([...ids]).toEqual([made.id]);
      const { items } = await stack.call(rpcs.payments.listRefunds, { shopId: shop.shopId, id: paid.id });
      expect(items.map((r) => [r.id, r.amountKopecks, r.status])).toEqual([[made.id, 1000, "SUCCEEDED"]]);
      expect((await stack.call(rpcs.payments.get, { shopId: shop.shopId, id: paid.id })).refundedKopecks).toBe(1000);
    });
  });

  // The bucket lives in NATS; payments' store plays no part.
  sqliteRunOnly(engine, () => {
    // Last on purpose: it restarts NATS without its store under the whole stack.
    describe("after NATS loses its store", () => {
      test("the bucket is recreated on the next request with a key: keys work again, without restarting the gateway", async () => {
        await stack.nats.stop();
        rmSync(join(stack.dataDir, "jetstream"), { recursive: true, force: true });
        await stack.startNats();
        // The directory comes back first (the directory republishes it); until then the key is a 401.
        // Until the bucket is back a keyed create runs unrecorded (docs/gateway.md): it has no replay.
        // Once it is back, without a gateway restart, a key records its answer and replays it.
        const { text, replay } = await eventually(
          async () => {
            const key = newKey();
            const body = { orderId: orderId(), amountKopecks: 15000 };
            const first = await create(key, body);
            if (first.status !== 201) return false;
            const replay = await create(key, body);
            return replay.headers.get("Idempotent-Replayed") === "true" && { text: await first.text(), replay };
          },
          30_000,
          200,
        );
        expect({ status: replay.status, text: await replay.text() }).toEqual({ status: 201, text });
      });
    });
  });
});
