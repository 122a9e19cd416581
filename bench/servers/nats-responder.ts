/**
 * Ceiling (b), the service side: platform `serve` (request validation, typed reply envelope, queue
 * group) around a handler that does nothing.
 */
import { connectBus, createLogger, serve, servingConfirmed } from "@payaccept/platform";
import { noopRpc } from "./noop-rpc.ts";

const log = createLogger("bench-responder", "warn");
const nc = await connectBus(process.env.NATS_URL!, "bench-responder", log);
serve(nc, noopRpc, () => ({ ok: true }), { queue: "bench", log });
await servingConfirmed(nc); // before anyone is told to call it
console.log("serving");
