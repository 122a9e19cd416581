import { MemoryDedupeStore, type DedupeStore } from "./dedupe.ts";
import type { WebhookEvent } from "./event.ts";
import { verifyWebhook, type VerifyOptions } from "./verify.ts";

export type WebhookEventContext = {
  /** True for test notifications and sandbox payments: acknowledge, deliver no goods. */
  test: boolean;
};

export type WebhookHandlerOptions = VerifyOptions & {
  /** The shop's signing secret (dashboard, Webhook tab). */
  secret: string;
  /** Runs after the 200 has been sent, once per (id, status). Unknown statuses arrive here too. */
  onEvent: (event: WebhookEvent, context: WebhookEventContext) => unknown;
  /** onEvent threw or rejected; the pair is forgotten so that a resend is handled again. Default: console.error. */
  onError?: (error: unknown, event: WebhookEvent) => void;
  /** Default: an in-memory store of recent pairs. false turns deduplication off. */
  dedupe?: DedupeStore | false;
  /** Larger bodies are refused with 413. Default 256 KiB. */
  maxBodyBytes?: number;
};

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

/**
 * A ready webhook endpoint for any Fetch-style server (Bun.serve, Deno, Hono, Next.js route
 * handlers): verifies the raw body, answers 200 at once and hands the event to onEvent afterwards
 * (spec §6: reply first, then do slow work), at most once per (id, status).
 * Failed verification answers 401 (400 for a malformed body), so the service retries.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): (req: Request) => Promise<Response> {
  const { maxBodyBytes = 256 * 1024 } = options;
  const dedupe = options.dedupe === false ? null : (options.dedupe ?? new MemoryDedupeStore());
  const onError = options.onError ?? ((error: unknown, event: WebhookEvent) => console.error("webhook handler failed", event.id, event.status, error));

  async function handOn(event: WebhookEvent, key: string): Promise<void> {
    try {
      await options.onEvent(event, { test: event.test === true });
    } catch (error) {
      onError(error, event);
      try {
        await dedupe?.release(key);
      } catch (releaseError) {
        onError(releaseError, event);
      }
    }
  }

  return async (req) => {
    if (req.method !== "POST") return json(405, { error: "method_not_allowed" });
    if (Number(req.headers.get("content-length") ?? 0) > maxBodyBytes) return json(413, { error: "body_too_large" });
    const body = new Uint8Array(await req.arrayBuffer());
    if (body.byteLength > maxBodyBytes) return json(413, { error: "body_too_large" });
    const verified = verifyWebhook(body, req.headers, options.secret, options);
    if (!verified.ok) return json(verified.reason === "malformed_body" ? 400 : 401, { error: verified.reason, message: verified.message });
    const { event } = verified;
    const key = `${event.id}:${event.status}`;
    if (dedupe && !(await dedupe.claim(key))) return json(200, { received: true, duplicate: true });
    setTimeout(() => void handOn(event, key), 0);
    return json(200, { received: true });
  };
}

/** The same endpoint as a Hono handler: `app.post("/webhooks", createHonoWebhookHandler({ ... }))`. */
export function createHonoWebhookHandler(options: WebhookHandlerOptions): (c: { req: { raw: Request } }) => Promise<Response> {
  const handle = createWebhookHandler(options);
  return (c) => handle(c.req.raw);
}
