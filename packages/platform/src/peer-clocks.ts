import { hostname } from "node:os";
import { headers, type Msg, type MsgHdrs, type NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "./log.ts";
import { clockOffset } from "./metrics.ts";

/**
 * How far apart the clocks of this process and the processes it talks to are, and whether a
 * request's caller is still waiting for it (docs/clocks.md, "Clocks across hosts").
 *
 * Every request carries its caller's deadline on the caller's clock (Payaccept-Deadline). A
 * responder used to compare it with its own clock, so a caller whose clock was behind by more than
 * the timeout was never served, and one ahead had its requests acted on that much after it gave
 * up. Now the responder reads the caller's deadline on the caller's clock: it keeps, per caller,
 * bounds [lo, hi] of (the caller's clock − its own), measured NTP-style by asking the caller its
 * time (a probe: a request to the caller's own subject, its round trip bounding the answer), and
 * acts only when its own time + hi is still before the deadline. hi is an upper bound, so a request
 * is never acted on after its caller gave up, whatever the offset; it may be dropped up to the
 * probe's round trip (milliseconds) early. A request that sat in a frozen node's buffers is thus
 * still dropped, as before, by how long it sat rather than by whose clock is right.
 *
 * The bounds are learnt from probes (on a caller's first request, when a request looks late on
 * bounds older than a second, when a request shows them stale, and every 30 s while it calls) and
 * from the replies to this process's own calls (at most one a second asks the responder's time).
 * Each new pair of bounds is intersected with the old ones widened by the clocks' possible drift;
 * bounds that contradict the old ones (a clock was stepped) replace them.
 */

/** Request header: `<caller's clock id> <caller's clock at sending, epoch ms>`, plus ` ?` to ask for the responder's time in the reply. Reply header: `<responder's clock id> <its clock, epoch ms> <its label>`. */
export const CLOCK_HEADER = "Payaccept-Clock";

/** The subject a process answers probes of its clock on: `<prefix>.<clock id>`. */
const PROBE_SUBJECT = "_payaccept.clock";
/** A probe made for a request waits as long as the request's caller does (its deadline − its sending); one to refresh the bounds, this long. */
const REFRESH_PROBE_TIMEOUT_MS = 3_000;
/** Quartz drifts within NTP's frequency tolerance, 500 ppm: bounds widen by this much per ms of age. */
const DRIFT = 500e-6;
/** Bounds this recent are trusted when a request looks late; older ones are measured again first. */
const TRUST_LATE_MS = 1_000;
/** A caller still calling is probed again this often, so the metric follows its clock. */
const REFRESH_MS = 30_000;
/** A reply is asked for the responder's time at most this often. */
const ASK_EVERY_MS = 1_000;
/** A peer not heard from for this long is forgotten, and its metric series removed. */
const FORGET_MS = 10 * 60_000;
/** While a peer stays past the warning threshold, the warning is repeated this often. */
const WARN_AGAIN_MS = 10 * 60_000;

const LABEL = /^[\w.@/:-]{1,200}$/;
const ID = /^[0-9a-f-]{36}$/;

/**
 * What is known of one other clock: its offset from this process's (theirs − ours), exported as
 * clock_offset_seconds{peer}, and a warning while it is surely beyond warnAboveMs (again every
 * ten minutes while it stays there; a line when it comes back). The peer-clocks of the bus and the
 * store clock (store-clock.ts) report through it.
 */
export class OffsetReport {
  private warnedAt: number | undefined;

  constructor(
    readonly label: string,
    private readonly log: Logger | undefined,
    /** CLOCK_OFFSET_WARN; undefined (or no log): the metric only. */
    private readonly warnAboveMs: number | undefined,
  ) {}

  /** The offset is within [lo, hi] ms. */
  update(lo: number, hi: number): void {
    const offsetSeconds = Math.round((lo + hi) / 2) / 1000;
    clockOffset.set({ peer: this.label }, offsetSeconds);
    if (this.warnAboveMs === undefined || !this.log) return;
    const now = performance.now();
    const far = lo > this.warnAboveMs || hi < -this.warnAboveMs;
    if (far && (this.warnedAt === undefined || now - this.warnedAt > WARN_AGAIN_MS)) {
      this.warnedAt = now;
      this.log.warn(
        { peer: this.label, offsetSeconds, uncertaintyMs: Math.ceil((hi - lo) / 2), thresholdMs: this.warnAboveMs },
        "a peer's clock is off from this host's by more than CLOCK_OFFSET_WARN (offsetSeconds: the peer's minus ours); requests are still served, but keep both hosts on NTP",
      );
    } else if (!far && this.warnedAt !== undefined) {
      this.warnedAt = undefined;
      this.log.info({ peer: this.label, offsetSeconds }, "a peer's clock is back within CLOCK_OFFSET_WARN of this host's");
    }
  }

  /** The peer is gone: its series leaves the metric. */
  remove(): void {
    clockOffset.remove({ peer: this.label });
  }
}

type Peer = {
  report: OffsetReport;
  /** Bounds of (peer's clock − this clock) in ms, valid at `at`. */
  lo: number;
  hi: number;
  /** performance.now() of the bounds, of the last probe answered, of the last request or reply seen. */
  at: number;
  probedAt: number;
  seenAt: number;
};

/** Why a request is dropped, for the log line. */
export type Lateness = { caller: string; offsetMs?: number };

/** Told of each reply that introduced its responder (it carried CLOCK_HEADER): the rpc's subject and the reply's headers. */
export type IntroductionListener = (subject: string, headers: MsgHdrs) => void;

export class PeerClocks {
  /** This process's clock id: its probe subject, and the key other processes keep its bounds under. */
  readonly id = Bun.randomUUIDv7();
  readonly label: string;
  private readonly peers = new Map<string, Peer>();
  private readonly probing = new Map<string, Promise<Peer | undefined>>();
  private lastAsk = -Infinity;
  /** When (performance.now()) this process last told each caller its time, by the caller's clock id. */
  private readonly told = new Map<string, number>();
  private lastSweep = performance.now();
  /** Headers this process adds to every reply that introduces it (introduce()). */
  private readonly introduction: [string, string][] = [];
  /** Told of the replies to this process's calls that introduce their responder (onIntroduced()): each one added, as `introduction` keeps each header. */
  private readonly introduced: IntroductionListener[] = [];

  constructor(
    private readonly nc: NatsConnection,
    name: string,
    private readonly log: Logger,
    /** CLOCK_OFFSET_WARN: a peer whose offset is surely beyond this is logged. */
    private readonly warnAboveMs: number,
    /** This process's wall clock (a test moves it). */
    readonly wall: () => number = Date.now,
  ) {
    this.label = `${name}@${hostname()}/${process.pid}`;
  }

  /** Answers other processes' probes of this clock; resolves once nats-server has the subscription. */
  async answerProbes(): Promise<void> {
    this.nc.subscribe(`${PROBE_SUBJECT}.${this.id}`, {
      callback: (err, msg) => {
        if (!err) msg.respond(`${this.wall()} ${this.label}`);
      },
    });
    await this.nc.flush();
  }

  /** The request's CLOCK_HEADER, for a request sent at `sentAt` on this clock. */
  stamp(sentAt: number): string {
    const now = performance.now();
    const ask = now - this.lastAsk >= ASK_EVERY_MS;
    if (ask) this.lastAsk = now;
    return `${this.id} ${sentAt}${ask ? " ?" : ""}`;
  }

  /**
   * A header this process adds to the replies that introduce it (those carrying its clock: its
   * first to each caller within ASK_EVERY_MS, and each one asked for): what a caller must know of
   * every responder of a queue group it calls, and learns from them within a second of reaching
   * each (payments names the source of its change notices, docs/gateway.md).
   */
  introduce(name: string, value: string): void {
    this.introduction.push([name, value]);
  }

  /** `listener` is told of every reply to this process's calls that introduces its responder, besides the listeners added before it. */
  onIntroduced(listener: IntroductionListener): void {
    this.introduced.push(listener);
  }

  /** Learns from a reply to a request on `subject` sent at `sentAt`: the responder's time, when it was asked. */
  fromReply(reply: Msg, sentAt: number, subject: string): void {
    const value = reply.headers?.get(CLOCK_HEADER);
    if (!value) return;
    for (const listener of this.introduced) listener(subject, reply.headers!);
    const received = this.wall();
    const [id, time, label] = value.split(" ");
    const t = Number(time);
    if (!id || !ID.test(id) || !label || !LABEL.test(label) || !Number.isFinite(t)) return;
    this.learn(id, label, t - received, t - sentAt).seenAt = performance.now();
  }

  /**
   * Headers for the reply to a request with this CLOCK_HEADER: this clock's time, when the caller
   * asked for it, or when this process has not told that caller its time within ASK_EVERY_MS. A
   * caller asks with one request a second, which its queue groups may hand to any replica: a
   * replica that had just started would otherwise stay unknown to it until an asking request
   * happened to reach it.
   */
  replyHeaders(requestClock: string): MsgHdrs | undefined {
    const callerId = requestClock.slice(0, requestClock.indexOf(" "));
    const now = performance.now();
    const toldAt = this.told.get(callerId) ?? -Infinity;
    if (!requestClock.endsWith(" ?") && now - toldAt < ASK_EVERY_MS) return undefined;
    this.told.set(callerId, now);
    if (now - this.lastSweep > REFRESH_MS) this.forgetQuiet(now);
    const h = headers();
    h.set(CLOCK_HEADER, `${this.id} ${this.wall()} ${this.label}`);
    for (const [name, value] of this.introduction) h.set(name, value);
    return h;
  }

  /**
   * Whether the caller of a request is still waiting for it, by the caller's own clock: how many
   * more ms it waits at least, or why not (a promise when the caller's clock must be asked first).
   * `requestClock` is the request's CLOCK_HEADER, `deadline` its Payaccept-Deadline.
   */
  inTime(requestClock: string, deadline: number): number | Lateness | Promise<number | Lateness> {
    const [id, sentText] = requestClock.split(" ");
    const sent = Number(sentText);
    // It was sent before it arrived: the caller's clock is at least this far ahead of this one.
    const aheadAtLeast = sent - this.wall();
    if (!id || !ID.test(id) || !Number.isFinite(aheadAtLeast)) return { caller: "(malformed Payaccept-Clock)" };
    // Its caller waits this long from the sending at most (both on the caller's clock): a probe slower than that finds it late anyway.
    const patienceMs = Math.min(Math.max(deadline - sent, 1), 60_000);
    const known = this.peers.get(id);
    if (known) {
      known.seenAt = performance.now();
      if (known.seenAt - known.probedAt > REFRESH_MS) void this.probe(id, REFRESH_PROBE_TIMEOUT_MS);
      const verdict = this.judge(known, aheadAtLeast, deadline, known.seenAt);
      if (typeof verdict === "number") return verdict;
      // Late on bounds just measured: late indeed. Otherwise the bounds may be what is wrong.
      if (verdict !== "stale" && known.seenAt - known.probedAt <= TRUST_LATE_MS) return verdict;
    }
    return this.probe(id, patienceMs).then((peer) => {
      if (!peer) return { caller: known?.report.label ?? id };
      // Still contradicting fresh bounds: the caller's clock went back after it sent the request,
      // and its deadline cannot be placed any more. Dropped: an error is safe, a late effect is not.
      const verdict = this.judge(peer, aheadAtLeast, deadline, performance.now());
      return verdict === "stale" ? { caller: peer.report.label } : verdict;
    });
  }

  /** The ms left before the deadline on the caller's clock, at least; "stale" when the request contradicts the bounds. */
  private judge(peer: Peer, aheadAtLeast: number, deadline: number, now: number): number | "stale" | Lateness {
    const { lo, hi } = this.widened(peer, now);
    if (aheadAtLeast > hi) return "stale";
    const leftMs = deadline - (this.wall() + hi);
    return leftMs >= 0 ? leftMs : { caller: peer.report.label, offsetMs: (lo + hi) / 2 };
  }

  /** Asks the peer its time (one probe in flight per peer); undefined when it does not answer. */
  private probe(id: string, timeoutMs: number): Promise<Peer | undefined> {
    const inFlight = this.probing.get(id);
    if (inFlight) return inFlight;
    const sent = this.wall();
    const probe = this.nc.request(`${PROBE_SUBJECT}.${id}`, undefined, { timeout: timeoutMs }).then(
      (reply) => {
        const received = this.wall();
        const [time, label] = reply.string().split(" ");
        const t = Number(time);
        if (!label || !LABEL.test(label) || !Number.isFinite(t)) return undefined;
        const peer = this.learn(id, label, t - received, t - sent);
        peer.probedAt = performance.now();
        return peer;
      },
      () => undefined,
    );
    this.probing.set(id, probe);
    void probe.finally(() => this.probing.delete(id));
    return probe;
  }

  /** Bounds valid at `now`: the stored ones widened by the drift since they were measured. */
  private widened(peer: Peer, now: number): { lo: number; hi: number } {
    const drift = (now - peer.at) * DRIFT;
    return { lo: peer.lo - drift, hi: peer.hi + drift };
  }

  /** Takes in new bounds of a peer's offset: intersected with what is known, or instead of it when they disagree. */
  private learn(id: string, label: string, lo: number, hi: number): Peer {
    const now = performance.now();
    let peer = this.peers.get(id);
    if (!peer || peer.report.label !== label) {
      peer = { report: new OffsetReport(label, this.log, this.warnAboveMs), lo, hi, at: now, probedAt: -Infinity, seenAt: now };
      this.peers.set(id, peer);
    } else {
      const old = this.widened(peer, now);
      const agree = lo <= old.hi && hi >= old.lo;
      Object.assign(peer, { lo: agree ? Math.max(lo, old.lo) : lo, hi: agree ? Math.min(hi, old.hi) : hi, at: now });
    }
    peer.report.update(peer.lo, peer.hi);
    if (now - this.lastSweep > REFRESH_MS) this.forgetQuiet(now);
    return peer;
  }

  private forgetQuiet(now: number): void {
    this.lastSweep = now;
    for (const [id, at] of this.told) if (now - at > FORGET_MS) this.told.delete(id);
    for (const [id, peer] of this.peers) {
      if (now - peer.seenAt <= FORGET_MS) continue;
      this.peers.delete(id);
      peer.report.remove();
    }
  }
}
