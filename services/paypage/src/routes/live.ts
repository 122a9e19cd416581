import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { AppEnv } from "@payaccept/platform";
import type { CheckoutClient } from "../checkout.ts";
import type { StatusFeed } from "../status-feed.ts";
import { paymentIdOf } from "./payment-id.ts";

/** A stream ends after this long; EventSource reconnects by itself, so no connection lives forever. */
const MAX_STREAM_MS = 10 * 60_000;

export type LiveRoutesDeps = { checkout: CheckoutClient; feed: StatusFeed; recheckMs: number; closing: AbortSignal };

/**
 * Live status for the page's script: server-sent events pushed when payments publishes an event
 * for the payment (with a periodic re-read as a safety net), and a plain JSON read.
 */
export function liveRoutes(deps: LiveRoutesDeps): Hono<AppEnv> {
  const r = new Hono<AppEnv>();

  r.get("/pay/:id/status", async (c) => {
    const view = await deps.checkout.get(paymentIdOf(c));
    c.header("Cache-Control", "no-store");
    return c.json({ status: view.payment.status, expiresAt: view.expiresAt });
  });

  r.get("/pay/:id/events", async (c) => {
    const id = paymentIdOf(c);
    // Fail before the stream opens when the payment does not exist or payments is down.
    const first = await deps.checkout.get(id);
    c.header("Cache-Control", "no-store");
    return streamSSE(c, async (stream) => {
      let sent: string | undefined;
      const send = async (status: string) => {
        if (status === sent) return;
        sent = status;
        await stream.writeSSE({ event: "status", data: JSON.stringify({ status }), retry: 3000 });
      };
      // One read at a time, in order, so an older answer never overwrites a newer one.
      let queue = send(first.payment.status);
      const refresh = () => {
        queue = queue.then(async () => {
          try {
            await send((await deps.checkout.get(id)).payment.status);
          } catch (err) {
            c.get("log").debug({ err: (err as Error).message, paymentId: id }, "live status read failed; will retry");
          }
        });
      };
      const stopWatching = deps.feed.watch(id, refresh);
      // The comment line also keeps idle proxies and the server's idle timer from closing the stream.
      const recheck = setInterval(() => {
        refresh();
        queue = queue.then(() => stream.write(": ping\n\n")).then(() => undefined);
      }, deps.recheckMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, MAX_STREAM_MS);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        stream.onAbort(done);
        deps.closing.addEventListener("abort", done, { once: true });
      });
      clearInterval(recheck);
      stopWatching();
      await queue;
    });
  });

  return r;
}
