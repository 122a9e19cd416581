import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Kvm, type KV } from "@nats-io/kv";
import { ErrorBody, IDEMPOTENCY_BUCKET, IdempotencyRecord, operations, Payment, Refund, rpcs } from "@payaccept/contracts";
import { sha256Hex } from "@payaccept/platform";
import type { ServiceProcess } from "../infra/launcher/supervisor.ts";
import { ENGINES, sqliteRunOnly } from "./harness/engines.ts";
import { eventually, Stack, type ShopCreated } from "./harness/stack.ts";
import { paidSandbox } from "./payments-fixtures.ts";

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
  });
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
    const entry = await bucket.get(sha256Hex(`${shop.shopId}\n${key}`));
    return entry?.operation === "PUT" ? IdempotencyRecord.parse(entry.json()) : undefined;
  }
  async function errorOf(res: Response, status: number): Promise<ErrorBody> {
    const body = ErrorBody.parse(await res.json());
    expect({ status: res.status, statusCode: body.statusCode }).toEqual({ status, statusCode: status });
    return body;
  }
  const payments = () => stack.service("payments").proc!;
  const lookup = (id: string) => stack.call(rpcs.payments.lookup, { shopId: shop.shopId, orderId: id });
  /**
   * Resolves once NATS holds the gateway's create of the order (a plain subscriber gets a copy of
   * every request). The key's pending record is put before the call is sent, so a gateway killed on
   * seeing the record alone may not have sent it yet, as happened under load.
   */
  async function createSent(order: string): Promise<() => Promise<void>> {
    const sub = stack.nc.subscribe(rpcs.payments.create.subject, { timeout: 30_000 });
    await stack.nc.flush();
    return async () => {
      for await (const m of sub) if (m.json<{ request: { orderId: string } }>().request.orderId === order) break;
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
      expect((await lookup(body.orderId)).id).toBe(Payment.parse(JSON.parse(firstText)).id);
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

  describe("in flight, timeouts and crashes", () => {
    test("a retry after a 503 whose first attempt did commit answers that payment (the orderId conflict of an identical request)", async () => {
      const key = newKey();
      const body = { orderId: orderId(), amountKopecks: 15000, description: "answer lost" };
      payments().kill("SIGSTOP");
      try {
        await errorOf(await create(key, body), 503);
      } finally {
        payments().kill("SIGCONT");
      }
      // The first attempt's commit with its answer lost on the way back, made through payments' own RPC.
      const made = await stack.call(rpcs.payments.create, { shopId: shop.shopId, request: body });
      const retry = await create(key, body);
      expect(retry.status).toBe(201);
      expect(retry.headers.get("Idempotent-Replayed")).toBeNull();
      expect(Payment.parse(await retry.json()).id).toBe(made.id);
      // A create of the same orderId with another body under another key is still a conflict.
      await errorOf(await create(newKey(), { ...body, amountKopecks: 20000 }), 409);
    });

    // A twin meets the pending record; a 503 leaves a retry record and payments drops the late
    // request before its store; a dead gateway's lease runs out in the bucket, and the retry then
    // takes the orderId-conflict path of the case above.
    sqliteRunOnly(engine, () => {
      test("a twin of a request still in flight is a 409; the first one's answer is then replayed", async () => {
        const key = newKey();
        const body = { orderId: orderId(), amountKopecks: 15000 };
        payments().kill("SIGSTOP");
        let first: Promise<Response>;
        try {
          first = create(key, body);
          await eventually(async () => (await recordOf(key))?.state === "pending");
          const twin = await errorOf(await create(key, body), 409);
          expect(String(twin.message)).toContain("still in progress");
        } finally {
          payments().kill("SIGCONT");
        }
        const answer = await first;
        expect(answer.status).toBe(201);
        const p = Payment.parse(await answer.json());
        const replay = await create(key, body);
        expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
        expect(Payment.parse(await replay.json()).id).toBe(p.id);
      });

      test("a 503 is not stored: the retry runs again; the request that timed out is dropped, never acted on later", async () => {
        const key = newKey();
        const body = { orderId: orderId(), amountKopecks: 15000, description: "late" };
        payments().kill("SIGSTOP");
        try {
          await errorOf(await create(key, body), 503);
          expect(await recordOf(key)).toMatchObject({ state: "retry" });
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

      test("the gateway SIGKILLed mid-request: after restart the key waits out the lease, then gives the original payment", async () => {
        const key = newKey();
        const body = { orderId: orderId(), amountKopecks: 15000 };
        const sent = await createSent(body.orderId);
        payments().kill("SIGSTOP");
        let inFlight: Promise<unknown>;
        try {
          inFlight = create(key, body).then((r) => r.status, () => "connection lost");
          await eventually(async () => (await recordOf(key))?.state === "pending");
          await sent();
          await stack.service("gateway").stop("SIGKILL");
        } finally {
          payments().kill("SIGCONT");
        }
        expect(await inFlight).toBe("connection lost");
        const made = await eventually(() => lookup(body.orderId));
        stack.service("gateway").start();
        await stack.service("gateway").waitReady();
        const statuses: number[] = [];
        const answer = await eventually(
          async () => {
            const res = await create(key, body);
            statuses.push(res.status);
            return res.status === 201 && res;
          },
          30_000,
          500,
        );
        // Until the dead gateway's lease ran out the key was busy; never anything else.
        expect(new Set(statuses.slice(0, -1))).toEqual(new Set(statuses.length > 1 ? [409] : []));
        expect(Payment.parse(await answer.json()).id).toBe(made.id);
        const replay = await create(key, body);
        expect({ status: replay.status, replayed: replay.headers.get("Idempotent-Replayed") }).toEqual({ status: 201, replayed: "true" });
        // The restarted gateway counted what each request with the key met.
        const metrics = await (await fetch(`${stack.url("gateway")}/metrics`)).text();
        for (const outcome of ["retry", "replay", ...(statuses.length > 1 ? ["busy"] : [])]) {
          expect(metrics).toMatch(new RegExp(`gateway_idempotency_requests_total\\{outcome="${outcome}"\\} [1-9]`));
        }
      });
    });
  });

  describe("several gateway replicas", () => {
    let replica: ServiceProcess;
    beforeAll(async () => {
      replica = await stack.addReplica("gateway");
    });

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

    test("20 requests with one key at once, over both replicas: one payment, the rest are 409 or its replay", async () => {
      const key = newKey();
      const body = { orderId: orderId(), amountKopecks: 15000 };
      const bases = [stack.gateway, `${replica.url}/api`];
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => create(key, body, bases[i % 2])));
      const outcomes = await Promise.all(results.map(async (r) => ({ status: r.status, replayed: r.headers.get("Idempotent-Replayed"), body: await r.json() })));
      const made = outcomes.filter((o) => o.status === 201 && o.replayed === null);
      expect(made).toHaveLength(1);
      const id = Payment.parse(made[0]!.body).id;
      for (const o of outcomes) {
        if (o.status === 201) expect(o.body.id).toBe(id);
        else expect(o.status).toBe(409);
      }
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
