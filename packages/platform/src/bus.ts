import { connect, headers, type Msg, type NatsConnection, type Subscription } from "@nats-io/transport-node";
import { DomainError, formatIssues, type Rpc, type RpcReply, type RpcRequest, type RpcResponse } from "@payaccept/contracts";
import type { z } from "zod";
import type { Logger } from "./log.ts";
import { natsRequestDuration, rpcDuration, rpcHandled } from "./metrics.ts";
import { warnWhilePending, withoutCredentials } from "./pending.ts";

export type { NatsConnection, Msg, Subscription };

const NATS_WAIT_WARNINGS = { firstMs: 3_000, everyMs: 10_000 };

/**
 * Connects and keeps reconnecting forever; a service started before NATS waits for it, saying so
 * (with the servers it tries) within seconds and then every few seconds, never in silence.
 */
export async function connectBus(url: string, name: string, log: Logger): Promise<NatsConnection> {
  const connecting = connect({
    servers: url.split(","),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    pingInterval: 5000,
    maxPingOut: 2,
    // An Error made up front for every request's stack trace: ~5 % of the gateway's CPU. A failed
    // call becomes a DomainError naming the subject anyway.
    noAsyncTraces: true,
  });
  const nc = await warnWhilePending(connecting, NATS_WAIT_WARNINGS, (waitedMs) =>
    log.warn({ natsUrl: withoutCredentials(url), waitedMs }, "NATS not reachable yet; still trying"),
  );
  (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnect" || s.type === "error") log.warn({ nats: s.type }, "nats status");
    }
  })().catch(() => {});
  return nc;
}

/** True while the connection is up; follows disconnects and reconnects, for /readyz. */
export function connectionUp(nc: NatsConnection): () => boolean {
  let up = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") up = false;
      else if (s.type === "reconnect") up = true;
    }
  })().catch(() => {});
  return () => up && !nc.isClosed();
}

const enc = new TextEncoder();
const dec = new TextDecoder();
export const encodeJson = (v: unknown) => enc.encode(JSON.stringify(v));
export const decodeJson = <T = unknown>(data: Uint8Array): T => JSON.parse(dec.decode(data)) as T;

/** The NATS header that carries the gateway's request id to every service a request reaches. */
export const REQUEST_ID_HEADER = "X-Request-Id";
/** What a request id may look like (the gateway keeps an inbound X-Request-Id only when it does). */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id a caller sent with this message, if a sane one. */
export function requestIdOf(msg: Msg): string | undefined {
  const id = msg.headers?.get(REQUEST_ID_HEADER);
  return id && REQUEST_ID.test(id) ? id : undefined;
}

/** The reply's bytes; no responder, a timeout or a closed connection is UNAVAILABLE (503). */
async function request(nc: NatsConnection, subject: string, payload: unknown, timeoutMs: number, started: number, requestId: string | undefined): Promise<Uint8Array<ArrayBuffer>> {
  try {
    // One header, set only when there is an id: the request stays a plain PUB otherwise.
    const opts = requestId === undefined ? { timeout: timeoutMs } : { timeout: timeoutMs, headers: requestIdHeader(requestId) };
    return (await nc.request(subject, encodeJson(payload), opts)).data as Uint8Array<ArrayBuffer>;
  } catch {
    natsRequestDuration.observe({ subject, outcome: "unavailable" }, (performance.now() - started) / 1000);
    throw new DomainError("UNAVAILABLE", `${subject.split(".")[0]} service unavailable`);
  }
}

function requestIdHeader(requestId: string) {
  const h = headers();
  h.set(REQUEST_ID_HEADER, requestId);
  return h;
}

/** The typed error of a reply that is not ok, after counting it. */
function replyError(subject: string, reply: RpcReply<unknown>, started: number): DomainError | undefined {
  natsRequestDuration.observe({ subject, outcome: reply.ok ? "ok" : reply.error.code }, (performance.now() - started) / 1000);
  return reply.ok ? undefined : new DomainError(reply.error.code, reply.error.message);
}

/**
 * Request/reply with a timeout. Returns the reply's data or throws DomainError with the
 * responder's error code; no responder, a timeout or a closed connection is UNAVAILABLE.
 * requestId travels in the X-Request-Id header, for the responder's log lines.
 */
export async function call<R extends Rpc<z.ZodType, z.ZodType>>(
  nc: NatsConnection,
  rpc: R,
  req: RpcRequest<R>,
  timeoutMs: number,
  requestId?: string,
): Promise<RpcResponse<R>> {
  const started = performance.now();
  const reply = decodeJson<RpcReply<RpcResponse<R>>>(await request(nc, rpc.subject, req, timeoutMs, started, requestId));
  const error = replyError(rpc.subject, reply, started);
  if (error) throw error;
  return (reply as { data: RpcResponse<R> }).data;
}

/** How serve() encodes every successful reply: its data follows this prefix, then one closing brace. */
const OK_REPLY_PREFIX = encodeJson({ ok: true, data: null }).subarray(0, -5);

/**
 * call() for relaying a reply to an HTTP client: the data's JSON exactly as the responder encoded
 * it, cut out of the reply envelope instead of parsed and serialised again (for a page of a
 * hundred payments that was as much of the gateway's CPU as producing the page was of payments').
 * Errors are thrown as call() throws them.
 */
export async function callForRelay<R extends Rpc<z.ZodType, z.ZodType>>(
  nc: NatsConnection,
  rpc: R,
  req: RpcRequest<R>,
  timeoutMs: number,
  requestId?: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const started = performance.now();
  const data = await request(nc, rpc.subject, req, timeoutMs, started, requestId);
  if (data.length > OK_REPLY_PREFIX.length && OK_REPLY_PREFIX.every((byte, i) => data[i] === byte)) {
    natsRequestDuration.observe({ subject: rpc.subject, outcome: "ok" }, (performance.now() - started) / 1000);
    return data.subarray(OK_REPLY_PREFIX.length, -1);
  }
  // A reply encoded some other way (not by serve()) is relayed all the same, the slow way.
  const reply = decodeJson<RpcReply<unknown>>(data);
  const error = replyError(rpc.subject, reply, started);
  if (error) throw error;
  return encodeJson((reply as { data: unknown }).data);
}

/** What serve() started on a connection: its subscriptions and the handlers still running. */
type Serving = { subs: Set<Subscription>; running: Set<Promise<void>> };
const serving = new WeakMap<NatsConnection, Serving>();

function servingOn(nc: NatsConnection): Serving {
  let s = serving.get(nc);
  if (!s) serving.set(nc, (s = { subs: new Set(), running: new Set() }));
  return s;
}

/**
 * Serves one RPC with a queue group (replicas share the load). The request is validated against
 * the contract; DomainError becomes a typed error reply; anything else is logged and INTERNAL,
 * with the caller's request id (requestIdOf(msg) gives it to handlers for their own lines).
 * stopServing(nc) ends it gracefully.
 */
export function serve<R extends Rpc<z.ZodType, z.ZodType>>(
  nc: NatsConnection,
  rpc: R,
  handler: (req: z.output<R["request"]>, msg: Msg) => Promise<RpcResponse<R>> | RpcResponse<R>,
  opts: { queue: string; log: Logger },
): Subscription {
  const state = servingOn(nc);
  const reply = (msg: Msg, body: RpcReply<unknown>, outcome: string, started: number) => {
    rpcHandled.inc({ subject: rpc.subject, outcome });
    rpcDuration.observe({ subject: rpc.subject, outcome }, (performance.now() - started) / 1000);
    if (msg.reply) msg.respond(encodeJson(body));
  };
  const handle = async (msg: Msg, started: number) => {
    let input: unknown;
    try {
      input = decodeJson(msg.data);
    } catch {
      return reply(msg, { ok: false, error: { code: "BAD_REQUEST", message: "malformed JSON" } }, "BAD_REQUEST", started);
    }
    const parsed = rpc.request.safeParse(input);
    if (!parsed.success) {
      return reply(msg, { ok: false, error: { code: "BAD_REQUEST", message: formatIssues(parsed.error) } }, "BAD_REQUEST", started);
    }
    try {
      const data = await handler(parsed.data as z.output<R["request"]>, msg);
      reply(msg, { ok: true, data }, "ok", started);
    } catch (e) {
      if (e instanceof DomainError) return reply(msg, { ok: false, error: { code: e.code, message: e.messages } }, e.code, started);
      opts.log.error({ err: e, subject: rpc.subject, requestId: requestIdOf(msg) }, "rpc handler failed");
      reply(msg, { ok: false, error: { code: "INTERNAL", message: "internal error" } }, "INTERNAL", started);
    }
  };
  const sub = nc.subscribe(rpc.subject, {
    queue: opts.queue,
    callback: (err, msg) => {
      if (err) {
        opts.log.error({ err, subject: rpc.subject }, "subscription error");
        return;
      }
      const task = handle(msg, performance.now())
        .catch((err) => opts.log.error({ err, subject: rpc.subject }, "rpc reply failed"))
        .finally(() => state.running.delete(task));
      state.running.add(task);
    },
  });
  state.subs.add(sub);
  return sub;
}

/**
 * Resolves once nats-server has every subscription serve() made on this connection. A service
 * reports ready (or starts listening) only after it: the connection writes its commands on the
 * next turn of the event loop (infra/patches), and only a round trip after them tells they were
 * taken; before that a first request would find no responder.
 */
export async function servingConfirmed(nc: NatsConnection): Promise<void> {
  await nc.flush();
}

/**
 * The graceful end of everything serve() started on the connection. Draining a subscription
 * unsubscribes it, so its queue group routes new requests to the other replicas only, while the
 * requests already on their way here are still delivered; then every running handler is waited
 * for, so each of them still has the connection to reply on and the store to work with. Run it
 * before anything those handlers use is closed, and before the connection is drained.
 */
export async function stopServing(nc: NatsConnection): Promise<void> {
  const state = serving.get(nc);
  if (!state) return;
  await Promise.allSettled([...state.subs].map((sub) => sub.drain()));
  state.subs.clear();
  await Promise.allSettled([...state.running]);
}
