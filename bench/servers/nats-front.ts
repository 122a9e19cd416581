/**
 * Ceiling (b), the HTTP side: every request becomes one platform `callForRelay` (the gateway's
 * code path to a service) to the noop responder, and its reply's data is the response body. Listens on a free port,
 * which its first line names.
 */
import { callForRelay, connectBus, createLogger } from "@payaccept/platform";
import { noopRpc } from "./noop-rpc.ts";

const nc = await connectBus(process.env.NATS_URL!, "bench-front", createLogger("bench-front", "warn"));
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: async () => new Response(await callForRelay(nc, noopRpc, { shopId: "bench" }, 3000), { headers: { "Content-Type": "application/json" } }),
});
console.log(`listening ${server.port}`);
