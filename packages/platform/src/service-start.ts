import { join } from "node:path";
import type { z } from "zod";
import { BACKED_UP_STORES, backupRpc, type BackedUpService } from "@payaccept/contracts";
import { connectBus, natsReadiness, serve, servingConfirmed, stopServing, type NatsConnection } from "./bus.ts";
import { commonEnv, resolveNatsUrl } from "./config.ts";
import { orExit } from "./database.ts";
import type { ReadinessCheck } from "./readiness.ts";
import { Lifecycle } from "./lifecycle.ts";
import { createLogger, type Logger } from "./log.ts";
import { startTracing } from "./tracing.ts";
import { copyStore } from "./store-backup.ts";

/** What a service chooses of its HTTP server; the interface is HOST. */
export type HttpOptions = {
  port: number;
  fetch: (req: Request, server: Bun.Server<undefined>) => Response | Promise<Response>;
  maxRequestBodySize?: number;
  idleTimeout?: number;
  /**
   * Aborted first at shutdown, before the server stops: what holds a response open for minutes (the
   * payment page's live-status streams) ends on its signal, since the server's stop waits for
   * every open request.
   */
  streams?: AbortController;
};

/** What every service's configuration has (it spreads commonEnv). */
export type CommonConfig = z.output<z.ZodObject<typeof commonEnv>>;

/**
 * The start every service shares, in the order that matters: configuration (parsed by the caller,
 * which exits naming a bad variable), logger, lifecycle, then `store()` before `bus()`, then what
 * the service wires on them, then `serve()` and `listen()` for its intake. main.ts calls each step
 * itself and stays the readable wiring of its service; this fixes what every service must do alike:
 *
 * - the store is opened before NATS is connected (`store()` after `bus()` throws): a store that
 *   cannot be opened (an unreachable PostgreSQL ends the start with one line, a failed migration)
 *   stops the process before it has joined a queue group or a consumer, and the start mirrors the
 *   shutdown;
 * - at shutdown (Lifecycle's stages) the intake stops first (HTTP, RPC serving), then the work in
 *   hand (what `onClose`/`essential` register), then the NATS connection is drained, and the store
 *   closes last, whatever order main.ts registered them in;
 * - `/readyz` gets one `nats` check (`readiness()`): not ready while the connection is down and
 *   reconnecting, not only once it is closed; the `database` check is the store's own probe
 *   (store-readiness.ts), which every store registers when it opens.
 */
export class ServiceStart<C extends CommonConfig> {
  readonly log: Logger;
  readonly lifecycle: Lifecycle;
  private nc: NatsConnection | undefined;
  private natsUp: ReadinessCheck | undefined;

  constructor(
    readonly name: string,
    readonly cfg: C,
  ) {
    // Before the logger, whose lines then carry the trace ids.
    const tracing = startTracing(name, cfg);
    this.log = createLogger(name, cfg.LOG_LEVEL);
    this.lifecycle = new Lifecycle(this.log, cfg.SHUTDOWN_GRACE_MS);
    // A start that fails (main.ts's awaits reject here in Bun) or an error nothing caught: one log
    // line an operator's tools can read, with the error as a field, then the exit a supervisor restarts.
    if (process.listenerCount("uncaughtException") === 0)
      process.on("uncaughtException", (err) => {
        this.log.fatal({ err }, "service ended by an error");
        process.exit(1);
      });
    // Registered first, so last of the last stage: the spans of the whole shutdown are exported.
    if (tracing) this.lifecycle.onClose("traces", tracing.shutdown, "store");
  }

  /** The service's store, opened before NATS and closed last. `close` for a store without its own close(). */
  async store<T extends { close(): unknown }>(opening: T | Promise<T>): Promise<T>;
  async store<T>(opening: T | Promise<T>, close: (store: T) => unknown): Promise<T>;
  async store<T>(opening: T | Promise<T>, close?: (store: T) => unknown): Promise<T> {
    if (this.nc) throw new Error(`${this.name}: store() after bus(): open the store before connecting NATS (docs/conventions.md)`);
    const store = await orExit(Promise.resolve(opening));
    this.lifecycle.onClose("store", () => (close ? close(store) : (store as { close(): unknown }).close()), "store");
    return store;
  }

  /** The NATS connection (waiting for NATS as long as it takes, saying so), drained after the work in hand and before the store closes. */
  async bus(): Promise<NatsConnection> {
    if (this.nc) throw new Error(`${this.name}: one NATS connection per service`);
    const nc = await connectBus(resolveNatsUrl(this.cfg), this.name, this.log, this.cfg);
    this.natsUp = natsReadiness(nc);
    this.lifecycle.onClose("nats", () => nc.drain(), "bus");
    this.nc = nc;
    return nc;
  }

  /** Work in hand to stop at shutdown: after the intake, before NATS is drained. */
  onClose(name: string, close: () => unknown): void {
    this.lifecycle.onClose(name, close, "work");
  }

  /** A worker the service is useless without (Lifecycle.essential): stopped with the work in hand. */
  essential(name: string, worker: { stop: () => unknown; ended: Promise<unknown> }): void {
    this.lifecycle.essential(name, worker);
  }

  /**
   * The service's RPCs: `register` makes its serve() calls; they stop with the intake at shutdown
   * (stopServing: the requests already routed here are answered), and this resolves once
   * nats-server has the subscriptions, so the service is ready only when it is reachable.
   */
  async serve(register: (nc: NatsConnection) => void): Promise<void> {
    const nc = this.nc;
    if (!nc) throw new Error(`${this.name}: serve() needs bus() first`);
    register(nc);
    // Every service that keeps rows copies its own store when asked (docs/operations-database.md, "Backups").
    const file = BACKED_UP_STORES[this.name as BackedUpService];
    if (file) {
      const dir = this.cfg.BACKUP_DIR ?? join(this.cfg.DATA_DIR, "backups");
      serve(nc, backupRpc(this.name as BackedUpService), (req) => copyStore(file, req.label, dir), { queue: `${this.name}-backup`, log: this.log });
    }
    this.lifecycle.onClose("rpc", () => stopServing(nc), "intake");
    await servingConfirmed(nc);
  }

  /** The checks of /readyz: `nats` once bus() has connected, then the service's own. */
  readiness(own: Record<string, ReadinessCheck> = {}): Record<string, ReadinessCheck> {
    return this.natsUp ? { nats: this.natsUp, ...own } : own;
  }

  /** The HTTP server on HOST; it stops (answering the requests in flight) with the intake at shutdown. */
  listen(options: HttpOptions): Bun.Server<undefined> {
    const { streams, ...serveOptions } = options;
    const server = Bun.serve({ hostname: this.cfg.HOST, ...serveOptions });
    this.lifecycle.onClose("http", () => server.stop(), "intake");
    // Registered after the server, so it runs before it (a stage runs its closers in reverse).
    if (streams) this.lifecycle.onClose("live streams", () => streams.abort(), "intake");
    return server;
  }
}

/** Begins a service's start: its logger (named `name`) and lifecycle, from its parsed configuration. */
export function startService<C extends CommonConfig>(name: string, cfg: C): ServiceStart<C> {
  return new ServiceStart(name, cfg);
}
