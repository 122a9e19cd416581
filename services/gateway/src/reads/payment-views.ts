import { PAYMENT_CHANGES_HEARTBEAT_MS, PAYMENT_CHANGES_SOURCE_HEADER, PAYMENT_CHANGES_SUBJECT, PaymentChanges, rpcs } from "@payaccept/contracts";
import { call, followIntroductions, type Logger, type NatsConnection } from "@payaccept/platform";

/** A payment as payments answered it to a read: the reply's bytes, relayed as they are. */
type View = { shopId: string; body: Uint8Array<ArrayBuffer>; filledAt: number };
/** Reads of one payment on their way to payments; `dirty` once a notice named it meanwhile. */
type Filling = { inFlight: number; dirty: boolean };

/** A source silent this long is taken as gone: what it committed since its last notice is unknown. */
export const SILENT_SOURCE_MS = 3 * PAYMENT_CHANGES_HEARTBEAT_MS;

export type PaymentViewsOptions = {
  /** Payments kept (and as many orderIds); 0 keeps none, and every read asks payments. */
  maxEntries: number;
  /** A view is asked for again this long after it was read from payments, whatever the notices said. */
  maxAgeMs: number;
  /** Nothing is kept for this long after the start and after each answer of a payments process that sends no notices. */
  holdMs: number;
  /** Told where each answer came from: memory, or payments (a read of it). */
  counted?: (source: "memory" | "payments") => void;
  now?: () => number;
};

/**
 * The gateway's read model of payments (docs/gateway.md, "Reads from the read model"): the
 * Payment bytes payments answered to a get or a lookup, kept by id, and orderId → id (learnt from
 * either answer), so that a read of a payment read before, by either, is answered without a NATS
 * round trip. Kept true by payments'
 * change notices (contracts' PaymentChanges): a payment they name is dropped, and a read of it
 * that was on its way when the notice came is not kept. Whatever the notices cannot vouch for is
 * dropped whole: a gap in a source's sequence, a source first heard (a payments process started,
 * perhaps on a restored store: the orderIds go too), a source silent for SILENT_SOURCE_MS, a lost
 * connection. While no source is heard nothing is kept or answered from memory. Otherwise the
 * orderId → id pairs stay through a drop: an orderId does not move while its store lives.
 *
 * A payments process whose notices are not heard changes payments unseen: one of a release before
 * the notices (during a rolling upgrade, in any order), or one whose notices do not arrive. Each
 * payments process introduces itself in its replies to the gateway (introduced()), naming its
 * source; one that names none, or a source not heard within SILENT_SOURCE_MS, turns the model off
 * (everything dropped, nothing kept) until none has answered for `holdMs`. The gateway's start
 * counts as one: until it has asked payments for `holdMs`, it cannot know there is none.
 */
export class PaymentViews {
  private readonly views = new Map<string, View>();
  private readonly orders = new Map<string, string>();
  private readonly filling = new Map<string, Filling>();
  private readonly sources = new Map<string, { seq: number; heardAt: number }>();
  /** Sources named in payments' replies and not heard on the notices' subject yet, by when first named. */
  private readonly named = new Map<string, number>();
  /** Nothing is kept before this: `holdMs` after the start. */
  private readonly startedUntil: number;
  /** Nor before this: `holdMs` after a payments process whose notices are not heard answered. */
  private heldUntil = -Infinity;
  /** Bumped by every drop of everything: a read begun before one is not kept. */
  private epoch = 0;
  /** Payments named by notices so far: a lookup (its id unknown until answered) is kept only if none came meanwhile. */
  private noticed = 0;
  private readonly now: () => number;

  constructor(private readonly opts: PaymentViewsOptions) {
    this.now = opts.now ?? (() => performance.now());
    this.startedUntil = this.now() + opts.holdMs;
  }

  get size(): number {
    return this.views.size;
  }

  /** Whether reads are kept now (and so answered from memory once kept). */
  get on(): boolean {
    const now = this.now();
    return this.opts.maxEntries > 0 && this.sources.size > 0 && this.named.size === 0 && now >= this.startedUntil && now >= this.heldUntil;
  }

  /** The payment `id` of the shop: from memory, else `read()` (payments' answer, kept when nothing changed it meanwhile). */
  async byId(shopId: string, id: string, read: () => Promise<Uint8Array<ArrayBuffer>>): Promise<Uint8Array<ArrayBuffer>> {
    const kept = this.fresh(id, shopId);
    if (kept) {
      this.opts.counted?.("memory");
      return kept;
    }
    this.opts.counted?.("payments");
    const started = { epoch: this.epoch, at: this.now() };
    const filling = this.filling.get(id) ?? { inFlight: 0, dirty: false };
    filling.inFlight++;
    this.filling.set(id, filling);
    try {
      const body = await read();
      if (!filling.dirty && this.keeps(started.epoch)) this.keep(id, shopId, body, started.at, paymentOf(body).orderId);
      return body;
    } finally {
      if (--filling.inFlight === 0) this.filling.delete(id);
    }
  }

  /**
   * The shop's payment of `orderId`: by its id once known (from a lookup of it, or from a read of
   * that payment by id), else `read()` (payments' lookup).
   */
  async byOrderId(shopId: string, orderId: string, read: () => Promise<Uint8Array<ArrayBuffer>>): Promise<Uint8Array<ArrayBuffer>> {
    const id = this.orders.get(orderKey(shopId, orderId));
    // Known: the lookup's answer is that payment's, kept as a get's would be.
    if (id !== undefined) return this.byId(shopId, id, read);
    this.opts.counted?.("payments");
    const started = { epoch: this.epoch, at: this.now(), noticed: this.noticed };
    const body = await read();
    if (this.keeps(started.epoch)) {
      const { id: answered } = paymentOf(body);
      this.learnOrder(shopId, orderId, answered);
      if (this.noticed === started.noticed && !this.filling.get(answered)?.dirty) this.keep(answered, shopId, body, started.at);
    }
    return body;
  }

  /** A notice of payments (already parsed): drops what it names, or everything when it cannot vouch for the rest. */
  notice(n: PaymentChanges): void {
    this.named.delete(n.source);
    const source = this.sources.get(n.source);
    if (!source) {
      this.sources.set(n.source, { seq: n.seq, heardAt: this.now() });
      // A process first heard: it may have been started on a store restored from a backup, whose
      // payments are older than what is kept (and whose orderIds may since name other payments),
      // and its notices before this one may have been lost. Nothing kept is vouched for.
      this.dropAll();
      this.orders.clear();
    } else {
      if (n.seq !== source.seq + 1) this.dropAll();
      source.seq = n.seq;
      source.heardAt = this.now();
    }
    for (const id of n.ids) {
      this.views.delete(id);
      const filling = this.filling.get(id);
      if (filling) filling.dirty = true;
    }
    this.noticed += n.ids.length;
  }

  /**
   * A payments process introduced itself in a reply, naming the source of its notices (empty: it
   * sends none). Returns true when that began a hold (not one renewed).
   */
  introduced(source: string): boolean {
    if (!source) return this.unvouched();
    if (!this.sources.has(source) && !this.named.has(source)) {
      // Its notices may yet come (a connection just regained): until heard, its changes are unseen.
      this.named.set(source, this.now());
      this.dropAll();
    }
    return false;
  }

  /**
   * Forgets the sources silent for SILENT_SOURCE_MS (a process stopped, or cut off from NATS),
   * dropping everything if any; a source named that long and never heard begins a hold (true).
   */
  forgetSilent(): boolean {
    const now = this.now();
    let forgot = false;
    for (const [name, s] of this.sources) {
      if (now - s.heardAt > SILENT_SOURCE_MS) forgot = this.sources.delete(name);
    }
    let unheard = false;
    for (const [name, at] of this.named) {
      if (now - at > SILENT_SOURCE_MS) unheard = this.named.delete(name);
    }
    if (forgot) this.dropAll();
    return unheard && this.unvouched();
  }

  /** The connection was lost: notices may have been missed, and every source is heard anew. */
  disconnected(): void {
    this.sources.clear();
    this.dropAll();
  }

  private dropAll(): void {
    this.views.clear();
    this.epoch++;
  }

  /** A payments process whose changes are not told: everything dropped, and nothing kept for `holdMs`. Whether no such hold was on. */
  private unvouched(): boolean {
    const now = this.now();
    const began = now >= this.heldUntil;
    this.heldUntil = now + this.opts.holdMs;
    this.dropAll();
    return began;
  }

  private fresh(id: string, shopId: string): Uint8Array<ArrayBuffer> | undefined {
    const view = this.views.get(id);
    if (!view) return undefined;
    // Another shop's payment does not exist for this one: payments answers that (404), not memory.
    if (view.shopId !== shopId) return undefined;
    if (this.now() - view.filledAt > this.opts.maxAgeMs) {
      this.views.delete(id);
      return undefined;
    }
    return view.body;
  }

  /** Whether a read begun at `epoch` may be kept: nothing dropped since, and the model on (sources heard to vouch for what follows). */
  private keeps(epoch: number): boolean {
    return epoch === this.epoch && this.on;
  }

  /** Keeps a payment's answer; with its `orderId`, a lookup of that orderId finds it too. */
  private keep(id: string, shopId: string, body: Uint8Array<ArrayBuffer>, filledAt: number, orderId?: string): void {
    // A copy: the reply's bytes may be a view into a larger buffer of the connection's.
    this.bounded(this.views, id).set(id, { shopId, body: body.slice(), filledAt });
    if (orderId !== undefined) this.learnOrder(shopId, orderId, id);
  }

  private learnOrder(shopId: string, orderId: string, id: string): void {
    const key = orderKey(shopId, orderId);
    this.bounded(this.orders, key).set(key, id);
  }

  /** The map with room for `key`: the oldest entry goes first. */
  private bounded<V>(map: Map<string, V>, key: string): Map<string, V> {
    if (map.size >= this.opts.maxEntries && !map.has(key)) map.delete(map.keys().next().value!);
    return map;
  }
}

/** The orders' key: an orderId is the shop's own, so the same one of another shop is another payment. */
const orderKey = (shopId: string, orderId: string) => `${shopId}\n${orderId}`;

const decoder = new TextDecoder();
/** What the read model needs of a Payment's bytes as payments answered them. */
const paymentOf = (body: Uint8Array): { id: string; orderId: string } => JSON.parse(decoder.decode(body));

/** How often the gateway asks payments something, so that every payments process answers it (and introduces itself) within seconds. */
export const PROBE_EVERY_MS = 250;
/** The probe: a read every release of payments answers, of no shop's figures (two index lookups finding nothing). */
const PROBE = { shopIds: ["read-model-probe"], fromDay: "2000-01-01", toDay: "2000-01-01" };

/**
 * Feeds the read model: payments' notices, the silence of their sources (checked every
 * heartbeat), the connection's losses, and the introductions in payments' replies to this
 * gateway's calls, its traffic's and a probe's every PROBE_EVERY_MS (a queue group hands each to
 * any process of it, so every one answers within seconds). Subscribed before the gateway serves;
 * until a first notice is heard the model keeps nothing. Returns what stops it.
 */
export function followPaymentChanges(nc: NatsConnection, views: PaymentViews, log: Logger, probeTimeoutMs: number): () => void {
  const sub = nc.subscribe(PAYMENT_CHANGES_SUBJECT, {
    callback: (err, msg) => {
      if (err) return log.warn({ err }, "payment changes subscription error");
      const notice = parseNotice(msg.data);
      if (notice) views.notice(notice);
      else log.warn({ subject: msg.subject }, "payment changes: a message that is not a notice; ignored");
    },
  });
  const turnedOff = (fields: Record<string, unknown>) =>
    log.warn(
      fields,
      "a payments process whose change notices this gateway does not hear answered (a release before the notices, or notices not arriving): the read model keeps nothing until none has answered for GATEWAY_READ_MODEL_HOLD",
    );
  followIntroductions(nc, (subject, headers) => {
    if (!subject.startsWith("payments.")) return;
    const source = headers.get(PAYMENT_CHANGES_SOURCE_HEADER);
    if (views.introduced(source)) turnedOff({ source: source || null });
  });
  const silence = setInterval(() => {
    if (views.forgetSilent()) turnedOff({ unheardFor: SILENT_SOURCE_MS });
  }, PAYMENT_CHANGES_HEARTBEAT_MS);
  const probe = setInterval(() => void call(nc, rpcs.payments.stats, PROBE, probeTimeoutMs).catch(() => {}), PROBE_EVERY_MS);
  void (async () => {
    for await (const s of nc.status()) if (s.type === "disconnect" || s.type === "staleConnection") views.disconnected();
  })().catch(() => {});
  return () => {
    clearInterval(silence);
    clearInterval(probe);
    sub.unsubscribe();
  };
}

/** A notice's bytes parsed and checked; undefined for anything else on the subject. */
function parseNotice(data: Uint8Array): PaymentChanges | undefined {
  try {
    const parsed = PaymentChanges.safeParse(JSON.parse(new TextDecoder().decode(data)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
