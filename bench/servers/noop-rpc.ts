import { z } from "zod";
import type { Rpc } from "@payaccept/contracts";

/** An RPC whose responder does nothing: the request/reply round trip of the architecture alone. */
export const noopRpc: Rpc<z.ZodObject<{ shopId: z.ZodString }>, z.ZodObject<{ ok: z.ZodBoolean }>> = {
  subject: "bench.v1.noop",
  request: z.object({ shopId: z.string() }),
  response: z.object({ ok: z.boolean() }),
  idempotent: true,
};
