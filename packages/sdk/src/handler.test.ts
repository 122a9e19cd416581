import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { Hono } from "hono";
import { MemoryDedupeStore, type DedupeStore } from "./dedupe.ts";
import type { WebhookEvent } from "./event.ts";
import { createHonoWebhookHandler, createWebhookHandler, type WebhookEventContext, type WebhookHandlerOptions } from "./handler.ts";

const SECRET = "whsec_handler";

function webhookRequest(fields: Partial<WebhookEvent> = {}, init: { ts?: number; secret?: string; method?: string } = {}): Request {
  const body = JSON.stringify({ id: "9d7e5c1a-2f0b-4e77-8d0c-1b2a3c4d5e6f", orderId: "A-1", status: "SUCCESS", amountKopecks: 10000, telegramId: null, metadata: null, test: false, ...fields });
  const ts = String(init.ts ?? Math.floor(Date.now() / 1000));
  const sign = (data: string) => createHmac("sha256", init.secret ?? SECRET).update(data).digest("hex");
  return new Request("http://merchant.test/webhooks", {
    method: init.method ?? "POST",
    headers: { "Content-Type": "application/json", "X-Signature": sign(body), "X-Timestamp": ts, "X-Signature-V2": sign(`${ts}.${body}`) },
    body: init.method === "GET" ? undefined : body,
  });
}

type Handled = { event: WebhookEvent; context: WebhookEventContext };
function setup(options: Partial<WebhookHandlerOptions> = {}) {
  const handled: Handled[] = [];
  const handler = createWebhookHandler({ secret: SECRET, onEvent: (event, context) => void handled.push({ event, context }), ...options });
  return { handler, handled };
}
/** Lets the timers the handler scheduled after its reply run. */
const afterReply = () => Bun.sleep(5);

describe("createWebhookHandler", () => {
  test("answers 200 first and hands the event on only after the reply", async () => {
    const { handler, handled } = setup();
    const res = await handler(webhookRequest());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true });
    expect(handled).toHaveLength(0);
    await afterReply();
    expect(handled).toEqual([{ event: expect.objectContaining({ orderId: "A-1", status: "SUCCESS" }), context: { test: false } }]);
  });

  test("each (id, status) is handed on once; the same payment's next status is a new event", async () => {
    const { handler, handled } = setup();
    for (const status of ["EXPIRED", "EXPIRED", "SUCCESS", "EXPIRED"]) expect((await handler(webhookRequest({ status }))).status).toBe(200);
    await afterReply();
    expect(handled.map((h) => h.event.status)).toEqual(["EXPIRED", "SUCCESS"]);
  });

  test("unknown statuses are acknowledged and handed on; test events carry the flag", async () => {
    const { handler, handled } = setup();
    expect((await handler(webhookRequest({ status: "CHARGEBACK" }))).status).toBe(200);
    expect((await handler(webhookRequest({ id: "test-abc", test: true }))).status).toBe(200);
    await afterReply();
    expect(handled.map((h) => [h.event.status, h.context.test])).toEqual([
      ["CHARGEBACK", false],
      ["SUCCESS", true],
    ]);
  });

  test("refusals: 401 with the reason for signatures and replays, 400 for a bad body, 405, 413", async () => {
    const { handler, handled } = setup({ maxBodyBytes: 1024 });
    const reason = async (req: Request) => {
      const res = await handler(req);
      return [res.status, ((await res.json()) as { error: string }).error];
    };
    expect(await reason(webhookRequest({}, { secret: "wrong" }))).toEqual([401, "signature_mismatch"]);
    expect(await reason(webhookRequest({}, { ts: Math.floor(Date.now() / 1000) - 600 }))).toEqual([401, "stale_timestamp"]);
    expect(await reason(webhookRequest({ amountKopecks: "100" as unknown as number }))).toEqual([400, "malformed_body"]);
    expect(await reason(webhookRequest({}, { method: "GET" }))).toEqual([405, "method_not_allowed"]);
    expect(await reason(webhookRequest({ metadata: { pad: "x".repeat(2000) } }))).toEqual([413, "body_too_large"]);
    await afterReply();
    expect(handled).toEqual([]);
  });

  test("when onEvent fails, onError hears of it and the pair is forgotten so a resend is handled", async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const { handler } = setup({
      onEvent: () => {
        if (++calls === 1) throw new Error("warehouse down");
      },
      onError: (error) => errors.push(error),
    });
    await handler(webhookRequest());
    await afterReply();
    expect(errors).toHaveLength(1);
    await handler(webhookRequest());
    await afterReply();
    expect(calls).toBe(2);
  });

  test("a pluggable dedupe store (a database in production) is used; false turns deduplication off", async () => {
    const claimed = new Set<string>();
    const store: DedupeStore = { claim: async (k) => !claimed.has(k) && !!claimed.add(k), release: (k) => void claimed.delete(k) };
    const withStore = setup({ dedupe: store });
    await withStore.handler(webhookRequest());
    const dup = await withStore.handler(webhookRequest());
    expect(await dup.json()).toEqual({ received: true, duplicate: true });
    expect([...claimed]).toEqual(["9d7e5c1a-2f0b-4e77-8d0c-1b2a3c4d5e6f:SUCCESS"]);

    const without = setup({ dedupe: false });
    await without.handler(webhookRequest());
    await without.handler(webhookRequest());
    await afterReply();
    expect(without.handled).toHaveLength(2);
  });

  test("the Hono variant reads the raw body itself", async () => {
    const handled: WebhookEvent[] = [];
    const app = new Hono();
    app.post("/webhooks", createHonoWebhookHandler({ secret: SECRET, onEvent: (e) => void handled.push(e) }));
    const res = await app.request(webhookRequest({ status: "REFUNDED" }));
    expect(res.status).toBe(200);
    await afterReply();
    expect(handled.map((e) => e.status)).toEqual(["REFUNDED"]);
  });
});

describe("MemoryDedupeStore", () => {
  test("keeps the most recently seen keys up to its capacity", () => {
    const store = new MemoryDedupeStore(2);
    expect([store.claim("a"), store.claim("b"), store.claim("a")]).toEqual([true, true, false]);
    store.claim("c"); // b is now the least recently seen and is forgotten
    expect([store.claim("a"), store.claim("c"), store.claim("b")]).toEqual([false, false, true]);
  });
});
