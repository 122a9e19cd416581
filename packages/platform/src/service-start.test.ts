import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { z } from "zod";
import { startNatsServer, type NatsProcess } from "../../../infra/launcher/nats-server.ts";
import { eventually, freePort } from "../../../tests/harness/stack.ts";
import { call, serve } from "./bus.ts";
import { commonEnv, parseConfig } from "./config.ts";
import { startService } from "./service-start.ts";
import { openStore, type Store } from "./store.ts";
import { NotReady } from "./store-readiness.ts";

/**
 * The start helper's order with a real nats-server and a real SQLite file: the store comes before
 * NATS, and at shutdown the intake stops first, the work in hand finishes with NATS and the store
 * still there, NATS is drained, and the store closes last, whatever order the service registered
 * its pieces in.
 */

const write = {
  subject: "test.start.write",
  request: z.object({ n: z.number().int() }),
  response: z.object({ written: z.number().int() }),
  idempotent: false,
};

let dir: string;
let natsPort: number;
let nats: NatsProcess;
let client: NatsConnection;

const startNats = async () => {
  nats = await startNatsServer({ port: natsPort, dataDir: dir });
};
const config = () => parseConfig(commonEnv, { DATA_DIR: dir, NATS_URL: `nats://127.0.0.1:${natsPort}`, LOG_LEVEL: "silent", HOST: "127.0.0.1", NATS_RECONNECT_WAIT: "50ms" });
let files = 0;
const openCounters = () => openStore(join(dir, `start-${++files}.db`), {}, join(dir, "drizzle"));
const rows = (store: Store<Record<string, never>>) => store.sqlite.query("SELECT n FROM written ORDER BY n").all();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "service-start-"));
  mkdirSync(join(dir, "drizzle", "meta"), { recursive: true });
  writeFileSync(
    join(dir, "drizzle", "meta", "_journal.json"),
    JSON.stringify({ version: "7", dialect: "sqlite", entries: [{ idx: 0, version: "6", when: 1_700_000_000_000, tag: "0000_written", breakpoints: true }] }),
  );
  writeFileSync(join(dir, "drizzle", "0000_written.sql"), "CREATE TABLE written (n integer PRIMARY KEY);");
  natsPort = await freePort();
  await startNats();
  client = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 50 });
});
afterAll(async () => {
  await client?.close();
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("startService", () => {
  test("the store is opened before NATS: a store asked for after the connection is refused", async () => {
    const svc = startService("order-test", config());
    const nc = await svc.bus();
    const late = openCounters();
    await expect(svc.store(late, (s) => s.sqlite.close())).rejects.toThrow("open the store before connecting NATS");
    late.sqlite.close();
    await svc.lifecycle.close();
    expect(nc.isClosed()).toBe(true);
  });

  test("shutdown: intake first, then the work in hand with NATS and the store, then NATS drained, the store last", async () => {
    const svc = startService("order-test", config());
    const seen: Record<string, unknown> = {};
    let nc!: NatsConnection;
    const store = await svc.store(openCounters(), (s) => {
      seen.atStoreClose = { natsClosed: nc.isClosed(), rows: rows(s) };
      s.sqlite.close();
    });
    nc = await svc.bus();

    // Registered in the reverse of the order they must close in: the stage decides, not the place.
    const server = svc.listen({ port: 0, fetch: () => new Response("ok") });
    const url = `http://127.0.0.1:${server.port}/`;
    svc.onClose("worker", async () => {
      seen.atWorkerClose = {
        httpRefused: await fetch(url).then(() => false, () => true),
        natsClosed: nc.isClosed(),
        rows: rows(store),
      };
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const handling = new Promise<void>((resolve) => (started = resolve));
    await svc.serve((nc) =>
      serve(
        nc,
        write,
        async ({ n }) => {
          started();
          await gate;
          store.sqlite.query("INSERT INTO written (n) VALUES (?)").run(n);
          return { written: n };
        },
        { queue: "order-test", log: svc.log },
      ),
    );
    expect(await (await fetch(url)).text()).toBe("ok");

    // An RPC in hand when the shutdown begins: answered, its row written, before anything closes under it.
    const answer = call(client, write, { n: 7 }, 10_000);
    await handling;
    const closed = svc.lifecycle.close();
    release();
    expect(await answer).toEqual({ written: 7 });
    await closed;

    expect(seen.atWorkerClose).toEqual({ httpRefused: true, natsClosed: false, rows: [{ n: 7 }] });
    expect(seen.atStoreClose).toEqual({ natsClosed: true, rows: [{ n: 7 }] });
  });

  test("a response held open (a live stream) ends at shutdown before the server stops, which waits for it", async () => {
    const svc = startService("order-test", config());
    const streams = new AbortController();
    const server = svc.listen({
      port: 0,
      streams,
      fetch: () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("open\n"));
              streams.signal.addEventListener("abort", () => controller.close());
            },
          }),
        ),
    });
    const res = await fetch(`http://127.0.0.1:${server.port}/`);
    const body = res.text();
    await svc.lifecycle.close();
    expect(streams.signal.aborted).toBe(true);
    expect(await body).toBe("open\n");
  });

  test("/readyz's nats check: not ready while the connection is reconnecting, ready again after", async () => {
    const svc = startService("order-test", config());
    expect(Object.keys(svc.readiness({ own: () => true }))).toEqual(["own"]);
    await svc.bus();
    const { nats: natsUp } = svc.readiness();
    expect(natsUp!()).toBe(true);

    await nats.stop();
    const down = await eventually(() => {
      try {
        natsUp!();
        return undefined;
      } catch (e) {
        return e;
      }
    });
    expect(down).toBeInstanceOf(NotReady);
    expect((down as NotReady).message).toBe("NATS connection lost; reconnecting");

    await startNats();
    await eventually(() => natsUp!(), 20_000);
    await svc.lifecycle.close();
    expect(() => natsUp!()).toThrow("NATS connection closed");
  });
});
