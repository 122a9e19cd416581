/** One request as the receiver saw it: the raw body text and every header. */
export type ReceivedWebhook = { at: number; path: string; headers: Record<string, string>; body: string };

export type Receiver = {
  url: string;
  requests: ReceivedWebhook[];
  stop: () => void;
};

/**
 * A real merchant endpoint on 127.0.0.1. `respond` gets the request's 0-based index; the request
 * is recorded before it answers, so a receiver that hangs still shows it arrived.
 */
export function startReceiver(
  respond: (request: ReceivedWebhook, index: number) => Response | Promise<Response> = () => new Response("ok"),
): Receiver {
  const requests: ReceivedWebhook[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const received: ReceivedWebhook = {
        at: Date.now(),
        path: new URL(req.url).pathname,
        headers: Object.fromEntries(req.headers),
        body: new TextDecoder().decode(await req.arrayBuffer()),
      };
      const index = requests.push(received) - 1;
      return respond(received, index);
    },
  });
  return { url: `http://127.0.0.1:${server.port}/webhooks`, requests, stop: () => void server.stop(true) };
}

/** Fails the first `failures` requests with `status`, then answers 200. */
export const failingFirst = (failures: number, status = 500) => (_: ReceivedWebhook, index: number) =>
  new Response(index < failures ? "not now" : "ok", { status: index < failures ? status : 200 });
