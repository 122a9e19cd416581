import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Resolver } from "@payaccept/domain";
import { sendWebhook, type SendOptions } from "./send.ts";

const SECRET = "whsec_test";
const BODY = JSON.stringify({ id: "p1", orderId: "o1", status: "SUCCESS", amountKopecks: 100, telegramId: null, metadata: { note: "заказ" }, test: false });
const resolvesToLoopback: Resolver = async () => [{ address: "127.0.0.1" }];
const options = (o: Partial<SendOptions> = {}): SendOptions => ({ timeoutMs: 1000, allowPrivate: true, now: Date.now, resolve: resolvesToLoopback, ...o });

type Seen = { host: string | null; headers: Headers; body: string };
const servers: { stop: (force: boolean) => unknown }[] = [];
function serve(respond: (req: Request) => Response | Promise<Response>, tls?: { cert: string; key: string }) {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls,
    async fetch(req) {
      seen.push({ host: req.headers.get("host"), headers: req.headers, body: await req.text() });
      return respond(req);
    },
  });
  servers.push(server);
  return { port: server.port, seen };
}
afterAll(() => servers.forEach((s) => s.stop(true)));

describe("sendWebhook over http", () => {
  test("connects to the resolved address with the URL's Host, and signs the exact body", async () => {
    const { port, seen } = serve(() => new Response("ok"));
    const before = Math.floor(Date.now() / 1000);
    const outcome = await sendWebhook({ url: `http://shop.test:${port}/hooks?x=1`, body: BODY, secret: SECRET }, options());

    expect(outcome).toMatchObject({ kind: "delivered", httpStatus: 200 });
    expect(seen).toHaveLength(1);
    const { host, headers, body } = seen[0]!;
    expect(host).toBe(`shop.test:${port}`);
    expect(body).toBe(BODY);
    expect(headers.get("content-type")).toBe("application/json");
    const ts = headers.get("x-timestamp")!;
    expect(Number(ts)).toBeGreaterThanOrEqual(before);
    expect(headers.get("x-signature")).toBe(createHmac("sha256", SECRET).update(BODY).digest("hex"));
    expect(headers.get("x-signature-v2")).toBe(createHmac("sha256", SECRET).update(`${ts}.${BODY}`).digest("hex"));
  });

  test("any non-2xx is a failure with the status named", async () => {
    const { port } = serve(() => new Response("nope", { status: 409 }));
    expect(await sendWebhook({ url: `http://127.0.0.1:${port}/h`, body: BODY, secret: SECRET }, options())).toMatchObject({
      kind: "failed",
      httpStatus: 409,
      error: { reason: "WEBHOOK_HTTP_STATUS", params: { httpStatus: 409 } },
    });
  });

  test("a redirect is a failure and its target is never contacted", async () => {
    const target = serve(() => new Response("moved here"));
    const { port } = serve(() => Response.redirect(`http://127.0.0.1:${target.port}/h`, 307));
    const outcome = await sendWebhook({ url: `http://127.0.0.1:${port}/h`, body: BODY, secret: SECRET }, options());
    expect(outcome).toMatchObject({ kind: "failed", httpStatus: 307, error: { reason: "WEBHOOK_REDIRECT", params: { httpStatus: 307 } } });
    expect(target.seen).toHaveLength(0);
  });

  test("an endless response body is not read: the attempt completes on the status line", async () => {
    let pulled = 0;
    const endless = () =>
      new Response(
        new ReadableStream({
          pull(controller) {
            pulled++;
            controller.enqueue(new Uint8Array(64 * 1024));
          },
        }),
      );
    const { port } = serve(endless);
    const outcome = await sendWebhook({ url: `http://127.0.0.1:${port}/h`, body: BODY, secret: SECRET }, options());
    expect(outcome).toMatchObject({ kind: "delivered", httpStatus: 200 });
    expect(pulled).toBeLessThan(1000);
  });

  test("no response headers within the timeout is a failure", async () => {
    const { port } = serve(async () => {
      await Bun.sleep(2000);
      return new Response("late");
    });
    const outcome = await sendWebhook({ url: `http://127.0.0.1:${port}/h`, body: BODY, secret: SECRET }, options({ timeoutMs: 200 }));
    expect(outcome).toMatchObject({ kind: "failed", httpStatus: null, error: { reason: "WEBHOOK_TIMEOUT", params: { timeoutMs: 200 } } });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(200);
  });

  test("a DNS lookup that never answers is bounded by the same timeout", async () => {
    const outcome = await sendWebhook(
      { url: "http://shop.test/h", body: BODY, secret: SECRET },
      options({ timeoutMs: 200, resolve: () => new Promise(() => {}) }),
    );
    expect(outcome).toMatchObject({ kind: "failed", error: { reason: "WEBHOOK_TIMEOUT", params: { timeoutMs: 200 } } });
  });

  test("a refused connection is a failure with the reason", async () => {
    const { port } = serve(() => new Response("ok"));
    servers.at(-1)!.stop(true);
    const outcome = await sendWebhook({ url: `http://127.0.0.1:${port}/h`, body: BODY, secret: SECRET }, options());
    expect(outcome).toMatchObject({ kind: "failed", httpStatus: null });
    expect(outcome).toMatchObject({ error: { reason: "WEBHOOK_CONNECTION_FAILED", params: { detail: "ECONNREFUSED" } } });
  });

  test("a private address without WEBHOOK_ALLOW_PRIVATE is blocked and nothing is sent", async () => {
    const { port, seen } = serve(() => new Response("ok"));
    const outcome = await sendWebhook({ url: `http://127.0.0.1:${port}/h`, body: BODY, secret: SECRET }, options({ allowPrivate: false }));
    expect(outcome).toMatchObject({ kind: "blocked", error: { reason: "WEBHOOK_ADDRESS_BLOCKED", params: { host: "127.0.0.1" } } });
    expect(seen).toHaveLength(0);
  });
});

describe("sendWebhook over https", () => {
  let dir: string;
  let tls: { cert: string; key: string };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "webhook-tls-"));
    const openssl = Bun.spawn(
      ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=shop.test", "-addext", "subjectAltName=DNS:shop.test",
        "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")],
      { stdout: "ignore", stderr: "pipe" },
    );
    if ((await openssl.exited) !== 0) throw new Error(`openssl failed: ${await new Response(openssl.stderr).text()}`);
    tls = { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("connecting to the pinned IP still presents and verifies the URL's name (SNI, certificate)", async () => {
    const { port, seen } = serve(() => new Response("ok"), tls);
    const outcome = await sendWebhook({ url: `https://shop.test:${port}/h`, body: BODY, secret: SECRET }, options({ tls: { ca: tls.cert } }));
    expect(outcome).toMatchObject({ kind: "delivered", httpStatus: 200 });
    expect(seen[0]!.host).toBe(`shop.test:${port}`);
  });

  test("a certificate for another name is refused", async () => {
    const { port, seen } = serve(() => new Response("ok"), tls);
    const outcome = await sendWebhook({ url: `https://other.test:${port}/h`, body: BODY, secret: SECRET }, options({ tls: { ca: tls.cert } }));
    expect(outcome).toMatchObject({ kind: "failed", httpStatus: null });
    expect(seen).toHaveLength(0);
  });
});
