import { describe, expect, test } from "bun:test";
import type { Server } from "@nats-io/transport-node";
import { anotherServerFirst } from "./bus.ts";

const server = (port: number, lastConnect: number): Server => ({
  hostname: "127.0.0.1",
  port,
  listen: `127.0.0.1:${port}`,
  src: `nats://127.0.0.1:${port}`,
  tlsName: "",
  reconnects: 0,
  lastConnect,
  gossiped: false,
  didConnect: lastConnect > 0,
});

describe("anotherServerFirst: which NATS server to dial", () => {
  test("the first connection takes nats.js's own pick", () => {
    expect(anotherServerFirst([server(1, 0), server(2, 0), server(3, 0)], null)).toBeNull();
  });

  test("after losing a server, the next dial goes to another one, not the one just lost", () => {
    const pool = [server(1, 5000), server(2, 0), server(3, 0)];
    expect(anotherServerFirst(pool, null)).toBe(pool[1]!);
  });

  test("nats.js's pick stands when it is not the server dialed last", () => {
    expect(anotherServerFirst([server(3, 0), server(1, 5000), server(2, 6000)], null)).toBeNull();
  });

  test("a single server is dialed again", () => {
    expect(anotherServerFirst([server(1, 5000)], null)).toBeNull();
  });
});
