import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { AppEnv } from "@payaccept/platform";
import type { CheckoutView } from "@payaccept/contracts";
import type { CheckoutClient } from "../checkout.ts";
import type { StatusFeed } from "../status-feed.ts";
import { paymentIdOf } from "./payment-id.ts";

/** A stream ends after this long; EventSource reconnects by itself, so no connection lives forever. */
const MAX_STREAM_MS = 10 * 60_000;

export type LiveRoutesDeps = { checkout: CheckoutClient; feed: StatusFeed; recheckMs: number; closing: AbortSignal };

/** What the page's script compares with what it rendered: a status change or a method switch. */
const stateOf = (view: CheckoutView) => JSON.stringify({ status: view.payment.status, method: view.payment.method });

/**
 * Live status for the page's script: server-sent events pushed when payments publishes an event
 * for the payment (with a periodic re-read as a safety net: a method switch, in another tab, is
 * no event and is seen by the re-read), and a plain JSON read.
 */
export function liveRoutes(deps: LiveRoutesDeps): Hono<AppEnv> {
  const r = new Hono<AppEnv>();

  r.get("/pay/:id/status", async (c) => {
    const view = await deps.checkout.get(paymentIdOf(c));
    c.header("Cache-Control", "no-store");
    return c.json({ status: view.payment.status, method: view.payment.method, expiresAt: view.expiresAt });
  });

  r.get("/pay/:id/events", async (c) => {
    const id = paymentIdOf(c);
    // Fail before the stream opens when the payment does not exist or payments is down.
    const first = await deps.checkout.get(id);
    c.header("Cache-Control", "no-store");
    return streamSSE(c, async (stream) => {
      let sent: string | undefined;
      const send = async (view: CheckoutView) => {
        const state = stateOf(view);
        if (state === sent) return;
        sent = state;
        await stream.writeSSE({ event: "status", data: state, retry: 3000 });
      };
      // One read at a time, in order, so an older answer never overwrites a newer one.
      let queue = send(first);
      const refresh = () => {
        queue = queue.then(async () => {
          try {
            await send(await deps.checkout.get(id));
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
