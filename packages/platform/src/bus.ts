import type { JetStreamClient, PubAck } from "@nats-io/jetstream";
import { connect, headers, type Msg, type NatsConnection, type ReconnectToServerHandler, type Subscription } from "@nats-io/transport-node";
import { ACTOR_HEADER, AuditActor, DomainError, invalidRequest, type Rpc, type RpcReply, type RpcRequest, type RpcResponse } from "@payaccept/contracts";
import type { z } from "zod";
import { defaultBusTuning, type BusTuning } from "./config.ts";
import type { Logger } from "./log.ts";
import { CallsInHand } from "./copies.ts";
import { Hedger } from "./hedge.ts";
import { natsRequestCopies, natsRequestDuration, rpcCopiesJoined, rpcDuration, rpcHandled } from "./metrics.ts";
import { warnWhilePending, withoutCredentials } from "./pending.ts";
import { NotReady } from "./store-readiness.ts";
import { databaseUnavailable } from "./pg-reconnect.ts";
import { CLOCK_HEADER, PeerClocks, type IntroductionListener, type Lateness } from "./peer-clocks.ts";
import { endPublishSpan, endRpcClientSpan, endRpcServerSpan, inRpcServerSpan, noteCopy, startPublishSpan, startRpcClientSpan, tracingOn, type TraceCarrier } from "./tracing.ts";
import type { Span } from "@opentelemetry/api";

export type { NatsConnection, Msg, Subscription };

const NATS_WAIT_WARNINGS = { firstMs: 3_000, everyMs: 10_000 };

/**
 * Connects and keeps reconnecting forever; a service started before NATS waits for it, saying so
 * (with the servers it tries) within seconds and then every few seconds, never in silence. A server
 * that stops answering (a frozen host, a partition) is given up after NATS_MAX_PINGS_OUT missed
 * pings and the next dial goes to another server (docs/nats.md, "How a client moves off a NATS node").
 */
export async function connectBus(url: string, name: string, log: Logger, tuning: BusTuning = defaultBusTuning()): Promise<NatsConnection> {
  const connecting = connect({
    servers: url.split(","),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: tuning.NATS_RECONNECT_WAIT,
    waitOnFirstConnect: true,
    pingInterval: tuning.NATS_PING_INTERVAL,
    maxPingOut: tuning.NATS_MAX_PINGS_OUT,
    timeout: tuning.NATS_CONNECT_TIMEOUT,
    noRandomize: tuning.NATS_SERVER_ORDER === "given",
    reconnectToServer: anotherServerFirst,
    // An Error made up front for every request's stack trace: ~5 % of the gateway's CPU. A failed
    // call becomes a DomainError naming the subject anyway.
    noAsyncTraces: true,
  });
  const nc = await warnWhilePending(connecting, NATS_WAIT_WARNINGS, (waitedMs) =>
    log.warn({ natsUrl: withoutCredentials(url), waitedMs }, "NATS not reachable yet; still trying"),
  );
  hedgers.set(nc, hedgersFor(tuning.NATS_HEDGE_AFTER));
  await watchClocks(nc, name, log, tuning.CLOCK_OFFSET_WARN);
  (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnect" || s.type === "error" || s.type === "staleConnection") {
        log.warn({ nats: s.type, server: "server" in s ? s.server : undefined }, "nats status");
      }
    }
  })().catch(() => {});
  return nc;
}

/**
 * Which server to dial: never the one dialed last while there is another. nats.js would otherwise
 * start its first reconnect with the server it was connected to (its rotation begins only after
 * it), and a frozen server accepts the TCP connection and then sends nothing, so the whole dial
 * timeout was spent on it. The one dialed last is the one just lost (or the one that just failed).
 */
export const anotherServerFirst: ReconnectToServerHandler = (pool) => {
  const last = pool.reduce((a, b) => (b.lastConnect > a.lastConnect ? b : a), pool[0]!);
  if (last.lastConnect === 0 || pool[0]!.listen !== last.listen) return null;
  return pool.find((s) => s.listen !== last.listen) ?? null;
};

/**
 * The `nats` check of /readyz: ready only while the connection is up. A connection that lost its
 * server and is reconnecting is not closed, so `!nc.isClosed()` would call it ready while every
 * request through it fails; this follows the connection's disconnects and reconnects instead, and
 * says (NotReady) whether the connection is reconnecting or closed. Made as soon as the connection
 * is (ServiceStart.bus()), so that no disconnect goes unseen.
 */
export function natsReadiness(nc: NatsConnection): () => boolean {
  let up = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") up = false;
      else if (s.type === "reconnect") up = true;
    }
  })().catch(() => {});
  return () => {
    if (nc.isClosed()) throw new NotReady("NATS connection closed");
    if (!up) throw new NotReady("NATS connection lost; reconnecting");
    return true;
  };
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


/**
 * Header of every request: the caller's clock time (epoch ms) after which it no longer waits for
 * the reply. A request can outlive its caller's patience inside a hung NATS node and be delivered
 * when the node resumes, many seconds after the caller answered 503; serve() drops such a request
 * instead of acting on it, so an error answer is never followed by a late effect. The deadline is
 * read on the caller's clock (peer-clocks.ts), so hosts whose clocks differ serve each other.
 */
export const DEADLINE_HEADER = "Payaccept-Deadline";

/** What the bus knows of the clocks of the processes each connection talks to (connectBus sets it). */
const clocks = new WeakMap<NatsConnection, PeerClocks>();

/**
 * Keeps the offsets of the clocks of the processes this connection talks to, and answers their
 * probes of this one's; connectBus does it for every service, a test with a clock of its own (`wall`).
 */
export async function watchClocks(nc: NatsConnection, name: string, log: Logger, warnAboveMs: number, wall?: () => number): Promise<PeerClocks> {
  const watch = new PeerClocks(nc, name, log, warnAboveMs, wall);
  await watch.answerProbes();
  clocks.set(nc, watch);
  return watch;
}

/**
 * What this process tells every caller in the replies that introduce it (PeerClocks.introduce:
 * its first reply to each caller within a second): `name: value`, besides its clock.
 */
export function introduceInReplies(nc: NatsConnection, name: string, value: string): void {
  clockOf(nc).introduce(name, value);
}

/** Tells `listener` of each reply to this connection's calls that introduces its responder (PeerClocks.onIntroduced). */
export function followIntroductions(nc: NatsConnection, listener: IntroductionListener): void {
  clockOf(nc).onIntroduced(listener);
}

function clockOf(nc: NatsConnection): PeerClocks {
  const watch = clocks.get(nc);
  if (!watch) throw new Error("the connection keeps no peer clocks (not made by connectBus or watchClocks)");
  return watch;
}

/**
 * Who a call is made for, when someone asked for it: the service that acts records it in their
 * name (the audit log). Per call (the gateway's API key, the dashboard's member), or for every
 * call of a connection (actAs: the admin CLI's operator).
 */
export type CallOptions = { requestId?: string; actor?: AuditActor };

const connectionActors = new WeakMap<NatsConnection, AuditActor>();

/** Every call on this connection that names no actor of its own is made for `actor`. */
export function actAs(nc: NatsConnection, actor: AuditActor): void {
  connectionActors.set(nc, actor);
}

/** Who the caller made this request for (ACTOR_HEADER), if it said and it is well-formed. */
export function actorOf(msg: Msg): AuditActor | undefined {
  const raw = msg.headers?.get(ACTOR_HEADER);
  if (!raw) return undefined;
  try {
    return AuditActor.safeParse(JSON.parse(raw)).data;
  } catch {
    return undefined;
  }
}

/**
 * Header of every request: one id per call, the same on each copy of it (hedging), so that an
 * idempotent write recognises a copy of a call it has already acted on (repeatKey).
 */
export const CALL_ID_HEADER = "Payaccept-Call-Id";

/** The call id a caller sent with this message, if a sane one. */
export function callIdOf(msg: Msg): string | undefined {
  const id = msg.headers?.get(CALL_ID_HEADER);
  return id && REQUEST_ID.test(id) ? id : undefined;
}

/** Kept before the caller's deadline, so that an answer sent then still arrives in time. */
const ANSWER_MARGIN_MS = 250;
/** The longest a handler waits to improve its answer, whatever a skewed caller's deadline says. */
const IMPROVE_WAIT_MAX_MS = 10_000;

/** When (performance.now()) the caller of each request serve() admitted stops waiting, read on the caller's clock at admission. */
const answerBy = new WeakMap<Msg, number>();

/**
 * How long the handler of a request has before its caller stops waiting, less a margin for the
 * answer to travel (0 once that is past); undefined when the caller set no deadline. Read on the
 * caller's clock (peer-clocks.ts), so work that must not take effect after the caller gave up (a
 * payout it was told failed) can be bounded by it.
 */
export function answerWithinMs(msg: Msg): number | undefined {
  const by = answerBy.get(msg);
  return by === undefined ? undefined : Math.max(0, by - performance.now() - ANSWER_MARGIN_MS);
}

/**
 * How long a handler may wait for something that only improves its answer (the outcome of work
 * that the first copy of its call is doing, copies.ts): answerWithinMs, capped; 0 without a deadline.
 */
export function improveWithinMs(msg: Msg): number {
  return Math.min(answerWithinMs(msg) ?? 0, IMPROVE_WAIT_MAX_MS);
}

/**
 * The key an idempotent write is deduplicated by: the one its caller gave (an Idempotency-Key),
 * else the call's own id, so that copies of one call make one refund or one payout, while two
 * calls without a key make two.
 */
export function repeatKey(explicitKey: string | undefined, msg: Msg): string | undefined {
  if (explicitKey !== undefined) return explicitKey;
  const callId = callIdOf(msg);
  return callId === undefined ? undefined : `call:${callId}`;
}

/**
 * What sends the copies of a connection's idempotent calls and of its publishes (connectBus sets
 * them from NATS_HEDGE_AFTER). Paced alike, with a budget each: a relay's batch of a hundred
 * events copied through an election must not spend the copies that the service's calls need at
 * the same moment.
 */
type Hedgers = { calls: Hedger; publishes: Hedger };
const hedgers = new WeakMap<NatsConnection, Hedgers>();
const hedgersFor = (afterMs: number): Hedgers => ({ calls: new Hedger(afterMs), publishes: new Hedger(afterMs) });

function hedgersOf(nc: NatsConnection): Hedgers {
  let h = hedgers.get(nc);
  if (!h) hedgers.set(nc, (h = hedgersFor(defaultBusTuning().NATS_HEDGE_AFTER)));
  return h;
}

/** One call on its way: when it started, and its client span while tracing is on. */
type Calling = { subject: string; started: number; span: Span | undefined };

/** A call's end: its duration by outcome, and its span's. */
function called(c: Calling, outcome: string, reason?: string): void {
  natsRequestDuration.observe({ subject: c.subject, outcome }, (performance.now() - c.started) / 1000);
  endRpcClientSpan(c.span, outcome, reason);
}

/**
 * The reply's bytes; no responder, a timeout or a closed connection is UNAVAILABLE (503). An
 * idempotent rpc is hedged (hedge.ts): its copies carry the same call id, deadline and trace context.
 */
async function request(nc: NatsConnection, rpc: Rpc<z.ZodType, z.ZodType>, payload: unknown, timeoutMs: number, opts: CallOptions): Promise<{ data: Uint8Array<ArrayBuffer>; calling: Calling }> {
  const started = performance.now();
  const watch = clocks.get(nc);
  const sentAt = watch ? watch.wall() : Date.now();
  const h = headers();
  h.set(DEADLINE_HEADER, String(sentAt + timeoutMs));
  if (watch) h.set(CLOCK_HEADER, watch.stamp(sentAt));
  h.set(CALL_ID_HEADER, Bun.randomUUIDv7());
  if (opts.requestId !== undefined) h.set(REQUEST_ID_HEADER, opts.requestId);
  const actor = opts.actor ?? connectionActors.get(nc);
  if (actor) h.set(ACTOR_HEADER, JSON.stringify(actor));
  const calling: Calling = { subject: rpc.subject, started, span: startRpcClientSpan(rpc.subject, h) };
  const data = encodeJson(payload);
  const attempt = (msLeft: number) => nc.request(rpc.subject, data, { timeout: msLeft, headers: h });
  try {
    const reply = rpc.idempotent
      ? await hedgersOf(nc).calls.run(attempt, Date.now() + timeoutMs, () => {
          natsRequestCopies.inc({ subject: rpc.subject });
          noteCopy(calling.span);
        })
      : await attempt(timeoutMs);
    watch?.fromReply(reply, sentAt, rpc.subject);
    return { data: reply.data as Uint8Array<ArrayBuffer>, calling };
  } catch {
    called(calling, "unavailable", "SERVICE_UNAVAILABLE");
    throw new DomainError("SERVICE_UNAVAILABLE", { service: rpc.subject.split(".")[0]! });
  }
}

const tracingHeaders = () => (tracingOn() ? headers() : undefined);

/**
 * A JetStream publish with a message id, copied while unanswered as an idempotent call is. When
 * the stream's leader was on a node that hangs, a publish made before the new leader took over
 * vanished and waited out its whole timeout (3 s) although the new leader answers within a second
 * of its election; a copy sent every NATS_HEDGE_AFTER reaches it. The stream keeps one message per
 * id within its duplicate window (and its consumers are idempotent besides), so a copy adds
 * nothing; the first PubAck wins. Answered PubAcks come in milliseconds, so no copy goes out then.
 * While tracing is on the publish is a producer span, child of `trace` (the stored context of the
 * write being published) or else of the current span, and its context travels in the headers.
 */
export async function publishWithCopies(
  nc: NatsConnection,
  js: JetStreamClient,
  subject: string,
  data: Uint8Array | string,
  opts: { msgID: string; timeoutMs: number; trace?: TraceCarrier | null },
): Promise<PubAck> {
  // Headers only while tracing: the publish span's context (opts.trace: the stored context of the write it publishes).
  const h = tracingHeaders();
  const span = h && startPublishSpan(subject, opts.msgID, h, opts.trace);
  const attempt = (msLeft: number) => js.publish(subject, data, { msgID: opts.msgID, timeout: msLeft, headers: h });
  try {
    const ack = await hedgersOf(nc).publishes.run(attempt, Date.now() + opts.timeoutMs, () => {
      natsRequestCopies.inc({ subject });
      noteCopy(span);
    });
    endPublishSpan(span, ack);
    return ack;
  } catch (error) {
    endPublishSpan(span, { error });
    throw error;
  }
}

/** The typed error of a reply that is not ok, after counting it. */
function replyError(calling: Calling, reply: RpcReply<unknown>): DomainError | undefined {
  if (reply.ok) return void called(calling, "ok");
  called(calling, reply.error.code, reply.error.reason);
  return DomainError.of(reply.error.reason, reply.error.params);
}

/**
 * Request/reply with a timeout. Returns the reply's data or throws DomainError with the
 * responder's error code; no responder, a timeout or a closed connection is UNAVAILABLE.
 * The request id travels in the X-Request-Id header, for the responder's log lines; the actor in
 * ACTOR_HEADER, for its audit log.
 */
export async function call<R extends Rpc<z.ZodType, z.ZodType>>(
  nc: NatsConnection,
  rpc: R,
  req: RpcRequest<R>,
  timeoutMs: number,
  opts: CallOptions = {},
): Promise<RpcResponse<R>> {
  const { data, calling } = await request(nc, rpc, req, timeoutMs, opts);
  const reply = decodeJson<RpcReply<RpcResponse<R>>>(data);
  const error = replyError(calling, reply);
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
  opts: CallOptions = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const { data, calling } = await request(nc, rpc, req, timeoutMs, opts);
  if (data.length > OK_REPLY_PREFIX.length && OK_REPLY_PREFIX.every((byte, i) => data[i] === byte)) {
    called(calling, "ok");
    return data.subarray(OK_REPLY_PREFIX.length, -1);
  }
  // A reply encoded some other way (not by serve()) is relayed all the same, the slow way.
  const reply = decodeJson<RpcReply<unknown>>(data);
  const error = replyError(calling, reply);
  if (error) throw error;
  return encodeJson((reply as { data: unknown }).data);
}

/**
 * Whether the request's caller still waits for it: how many more ms at least (Infinity without a
 * deadline), or why not. A request without a clock header comes from a connection that
 * connectBus did not make (a test's, a tool's) or from a service of an older release during a
 * rolling upgrade: its deadline is read on this clock, as before.
 */
function inTime(watch: PeerClocks | undefined, { deadline, clock }: Stamp): number | Lateness | Promise<number | Lateness> {
  if (!(deadline > 0)) return Infinity;
  if (watch && clock) return watch.inTime(clock, deadline);
  const leftMs = deadline - Date.now();
  return leftMs >= 0 ? leftMs : { caller: "(a caller without Payaccept-Clock)" };
}

/** A request's deadline (0: none) and clock header ("": none), read once: each header read scans them all. */
type Stamp = { deadline: number; clock: string };
function stampOf(msg: Msg): Stamp {
  const h = msg.headers;
  return h ? { deadline: Number(h.get(DEADLINE_HEADER)), clock: h.get(CLOCK_HEADER) } : { deadline: 0, clock: "" };
}

/** A request's reply and its outcome, as serve() counts it. */
type Answer = { body: RpcReply<unknown>; outcome: string };

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
 * with the caller's request id (requestIdOf(msg) gives it to handlers for their own lines). A
 * copy of an idempotent call that lands here while the first copy is still being handled is given
 * that copy's reply (copies.ts). stopServing(nc) ends it gracefully.
 */
export function serve<R extends Rpc<z.ZodType, z.ZodType>>(
  nc: NatsConnection,
  rpc: R,
  handler: (req: z.output<R["request"]>, msg: Msg) => Promise<RpcResponse<R>> | RpcResponse<R>,
  opts: { queue: string; log: Logger },
): Subscription {
  const state = servingOn(nc);
  const watch = clocks.get(nc);
  // Only an idempotent rpc is copied; a copy that lands here while its first copy runs gets its answer (copies.ts).
  const inHand = rpc.idempotent ? new CallsInHand<Answer>() : undefined;
  const handle = async (msg: Msg, started: number, span: Span | undefined) => {
    const stamp = stampOf(msg);
    const reply = (body: RpcReply<unknown>, outcome: string) => {
      rpcHandled.inc({ subject: rpc.subject, outcome });
      rpcDuration.observe({ subject: rpc.subject, outcome }, (performance.now() - started) / 1000);
      endRpcServerSpan(span, outcome, body.ok ? undefined : body.error.reason);
      if (msg.reply) msg.respond(encodeJson(body), { headers: stamp.clock ? watch?.replyHeaders(stamp.clock) : undefined });
    };
    const admitted = inTime(watch, stamp);
    const late = admitted instanceof Promise ? await admitted : admitted;
    if (typeof late !== "number") {
      // Nobody waits for the reply any more: acting now would be an effect after an error answer.
      rpcHandled.inc({ subject: rpc.subject, outcome: "expired" });
      endRpcServerSpan(span, "expired");
      opts.log.warn(
        { subject: rpc.subject, deadline: stamp.deadline, caller: late.caller, callerOffsetMs: late.offsetMs, requestId: requestIdOf(msg) },
        "request arrived after its caller's deadline (on the caller's clock); dropped",
      );
      return;
    }
    if (stamp.deadline > 0) answerBy.set(msg, performance.now() + late);
    const { body, outcome } = inHand
      ? await inHand.answer(callIdOf(msg), () => answer(msg), () => improveWithinMs(msg), () => rpcCopiesJoined.inc({ subject: rpc.subject }))
      : await answer(msg);
    reply(body, outcome);
  };
  /** The reply to a request that is in time, and its outcome for the metrics; never throws. */
  const answer = async (msg: Msg): Promise<Answer> => {
    let input: unknown;
    try {
      input = decodeJson(msg.data);
    } catch {
      return { body: { ok: false, error: new DomainError("MALFORMED_JSON").toRpc() }, outcome: "BAD_REQUEST" };
    }
    const parsed = rpc.request.safeParse(input);
    if (!parsed.success) {
      return { body: { ok: false, error: invalidRequest(parsed.error).toRpc() }, outcome: "BAD_REQUEST" };
    }
    try {
      return { body: { ok: true, data: await handler(parsed.data as z.output<R["request"]>, msg) }, outcome: "ok" };
    } catch (e) {
      if (e instanceof DomainError) return { body: { ok: false, error: e.toRpc() }, outcome: e.code };
      // A database that cannot be reached (down, or its primary moving) is a missing dependency: 503, retried by the caller.
      if (databaseUnavailable(e)) {
        opts.log.warn({ err: e, subject: rpc.subject, requestId: requestIdOf(msg) }, "rpc handler failed: the database is unavailable");
        return { body: { ok: false, error: new DomainError("SERVICE_UNAVAILABLE", { service: "database" }).toRpc() }, outcome: "UNAVAILABLE" };
      }
      opts.log.error({ err: e, subject: rpc.subject, requestId: requestIdOf(msg) }, "rpc handler failed");
      return { body: { ok: false, error: new DomainError("INTERNAL").toRpc() }, outcome: "INTERNAL" };
    }
  };
  const sub = nc.subscribe(rpc.subject, {
    queue: opts.queue,
    callback: (err, msg) => {
      if (err) {
        opts.log.error({ err, subject: rpc.subject }, "subscription error");
        return;
      }
      const started = performance.now();
      const task = inRpcServerSpan(rpc.subject, msg.headers, (span) => handle(msg, started, span))
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
