import { createHmac } from "node:crypto";
import { expect } from "bun:test";
import { DEV_ACQUIRER_API_KEY, DEV_ACQUIRER_CALLBACK_SECRET, ProviderCallback } from "@payaccept/contracts";
import { eventually, type Stack } from "./harness/stack.ts";

/** The acquirer emulator as its tests reach it: its API, its pages as a browser posts them, and a receiver of its callbacks. */

export type Received = { headers: Headers; body: string };

/** A callback endpoint whose answers the test controls (a stand-in for the protocol's receiving side). */
export class CallbackReceiver {
  readonly received: Received[] = [];
  status = 200;
  private server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => {
      this.received.push({ headers: req.headers, body: await req.text() });
      return new Response(null, { status: this.status });
    },
  });
  get url() {
    return `http://127.0.0.1:${this.server.port}/provider/callback`;
  }
  callbacksFor(sessionId: string) {
    return this.received.filter((r) => ProviderCallback.parse(JSON.parse(r.body)).sessionId === sessionId);
  }
  /** The distinct callbacks of a session (each once, however often it was attempted), once there are `count`. */
  async bodiesFor(sessionId: string, count: number): Promise<ProviderCallback[]> {
    const distinct = () => [...new Map(this.callbacksFor(sessionId).map((r) => ProviderCallback.parse(JSON.parse(r.body))).map((b) => [b.callbackId, b])).values()];
    await eventually(() => distinct().length >= count);
    return distinct();
  }
  stop() {
    this.server.stop(true);
  }
}

export const signatureOf = (r: Received) => createHmac("sha256", DEV_ACQUIRER_CALLBACK_SECRET).update(`${r.headers.get("x-acquirer-timestamp")}.${r.body}`).digest("hex");

export class AcquirerClient {
  constructor(private readonly stack: Stack) {}

  get base(): string {
    return this.stack.url("acquirer-emulator");
  }

  get publicOrigin(): string {
    return new URL(this.stack.env.ACQUIRER_PUBLIC_URL!).origin;
  }

  api(path: string, json?: unknown, opts: { key?: string | null; method?: string } = {}): Promise<Response> {
    const key = opts.key === undefined ? DEV_ACQUIRER_API_KEY : opts.key;
    const headers: Record<string, string> = {};
    if (json !== undefined) headers["Content-Type"] = "application/json";
    if (key !== null) headers.Authorization = `Bearer ${key}`;
    return fetch(`${this.base}${path}`, { method: opts.method ?? (json === undefined ? "GET" : "POST"), headers, body: json === undefined ? undefined : JSON.stringify(json) });
  }

  /** The path of a public URL the emulator handed out, on the address the test reaches it at. */
  local(publicUrl: string): string {
    return `${this.base}${new URL(publicUrl, this.stack.env.ACQUIRER_PUBLIC_URL).pathname}`;
  }

  async tokenOf(pageUrl: string, cookie?: string): Promise<string> {
    const html = await (await fetch(pageUrl, { headers: cookie ? { Cookie: cookie } : {} })).text();
    return /name="token" value="([0-9a-f]{64})"/.exec(html)![1]!;
  }

  postForm(url: string, fields: Record<string, string>, origin: string | null, cookie?: string): Promise<Response> {
    const headers: Record<string, string> = {};
    if (origin) headers.Origin = origin;
    if (cookie) headers.Cookie = cookie;
    return fetch(url, { method: "POST", body: new URLSearchParams(fields), headers, redirect: "manual" });
  }

  /** Presses a button of the SBP bank app; returns the payer cookie the emulator set, if any (a binding's consent). */
  async bankApp(qrPayload: string, decision: string, cookie?: string): Promise<string | undefined> {
    const page = this.local(qrPayload);
    const res = await this.postForm(page, { token: await this.tokenOf(page, cookie), decision }, this.publicOrigin, cookie);
    expect(res.status).toBe(303);
    return res.headers.getSetCookie()[0]?.split(";")[0] ?? cookie;
  }
}
