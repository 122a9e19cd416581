import { jsonError } from "@payaccept/platform";
import type { MiddlewareHandler } from "hono";
import type { GatewayEnv } from "./env.ts";

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** The body's bytes, or null as soon as they pass maxBytes (the rest is never read). */
async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Uint8Array<ArrayBuffer> | null> {
  if (!body) return new Uint8Array(new ArrayBuffer(0));
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    size += r.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(r.value);
  }
  const bytes = new Uint8Array(size);
  chunks.reduce((offset, chunk) => (bytes.set(chunk, offset), offset + chunk.byteLength), 0);
  return bytes;
}

/**
 * A JSON body of at most maxBytes: 415 for another content type, 413 when larger (by
 * Content-Length before reading, or while streaming), 400 when empty. The bytes are handed on to
 * the validator (which reports malformed JSON) as the request's body.
 */
export function jsonBody(maxBytes: number): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    if (!JSON_TYPE.test(c.req.header("content-type") ?? "")) return jsonError(c, 415, "Content-Type must be application/json");
    const tooLarge = () => jsonError(c, 413, `request body must be at most ${maxBytes} bytes`);
    if (Number(c.req.header("content-length") ?? 0) > maxBytes) return tooLarge();
    const bytes = await readCapped(c.req.raw.body, maxBytes);
    if (bytes === null) return tooLarge();
    if (bytes.byteLength === 0) return jsonError(c, 400, "request body is required");
    c.req.raw = new Request(c.req.raw.url, { method: c.req.method, headers: c.req.raw.headers, body: bytes });
    await next();
  };
}
