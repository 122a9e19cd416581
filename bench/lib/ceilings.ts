import { listeningPort, startBenchServer, stopServers } from "./spawn.ts";

export type Ceiling = { url: string; pids: Record<string, number>; stop: () => Promise<void> };

/** Ceiling (a): a bare Bun HTTP server answering a tiny JSON. */
export async function startBareHttp(): Promise<Ceiling> {
  const server = await startBenchServer("bare-http.ts");
  return { url: `http://127.0.0.1:${listeningPort(server.line)}/`, pids: { "bare-http": server.proc.pid }, stop: () => stopServers([server.proc]) };
}

/** Ceiling (b): HTTP server → platform `callForRelay` over NATS → platform `serve` responder doing nothing → reply. */
export async function startNatsRoundTrip(natsUrl: string): Promise<Ceiling> {
  const responder = await startBenchServer("nats-responder.ts", { NATS_URL: natsUrl }); // subscribed before the first request
  const front = await startBenchServer("nats-front.ts", { NATS_URL: natsUrl });
  return {
    url: `http://127.0.0.1:${listeningPort(front.line)}/`,
    pids: { "nats-front": front.proc.pid, "noop-responder": responder.proc.pid },
    stop: () => stopServers([front.proc, responder.proc]),
  };
}
