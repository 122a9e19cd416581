import { DomainError, type TransportCode } from "@payaccept/contracts";
import { describeReason } from "@payaccept/web-ui";
import type { Context } from "hono";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import type { FlashMessage } from "../flash.ts";
import { viewerOf } from "../middleware.ts";

/** After an action: the one-shot message for the next page, then post → redirect → get. */
export async function done(c: Context<WebEnv>, deps: WebDeps, location: string, message?: FlashMessage): Promise<Response> {
  if (message) await deps.flash.put(viewerOf(c), new URL(location, "http://x").pathname, message);
  return c.redirect(location, 303);
}

/** The message the previous action left for this page, if it is of the kind (and shop) the page shows. */
export async function flashFor<K extends FlashMessage["kind"]>(
  c: Context<WebEnv>,
  deps: WebDeps,
  kinds: K[],
  shopId?: string,
): Promise<Extract<FlashMessage, { kind: K }> | undefined> {
  const viewer = c.get("viewer");
  const message = viewer && (await deps.flash.take(viewer, c.req.path));
  if (!message || !kinds.includes(message.kind as K)) return undefined;
  if (shopId !== undefined && "shopId" in message && message.shopId !== shopId) return undefined;
  return message as Extract<FlashMessage, { kind: K }>;
}

export const noticeOf = async (c: Context<WebEnv>, deps: WebDeps) => {
  const message = await flashFor(c, deps, ["notice"]);
  return message && c.get("page").t[message.text];
};

/**
 * Runs an action whose refusal (BAD_REQUEST, CONFLICT, and the transport codes in `also`) the
 * person should read next to the form: returns the problems in the page's language instead of
 * throwing; anything else propagates.
 */
export async function refusalsOf(c: Context<WebEnv>, action: () => Promise<unknown>, also: TransportCode[] = []): Promise<string[]> {
  try {
    await action();
    return [];
  } catch (e) {
    if (e instanceof DomainError && (e.code === "BAD_REQUEST" || e.code === "CONFLICT" || also.includes(e.code))) return describeReason(c.get("page").lang, e.reason, e.params);
    throw e;
  }
}
