import { DomainError } from "@payaccept/contracts";
import { jsonError } from "@payaccept/platform";
import type { z } from "zod";
import type { Check } from "./env.ts";
import { validated } from "./validation.ts";

const JSON_TYPE = /^application\/json\s*(;|$)/i;
const IDENTITY = /^\s*identity\s*$/i;

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
 * A JSON body of at most maxBytes, valid against `schema`: 415 for another content type, 413
 * when larger (by Content-Length before reading, or while streaming a body sent without one), 400
 * when empty, not JSON, or invalid. With `optional`, a request without a body reads as `{}` (a
 * refund of everything left). The JSON as sent is left as `body` (the Idempotency-Key's
 * fingerprint is made from it), the schema's output for the handler (`c.req.valid("json")`).
 */
export function jsonBody(maxBytes: number, schema: z.ZodType, opts: { optional?: boolean } = {}): Check {
  // Fatal: malformed UTF-8 would become U+FFFD, and two different byte strings the same order id.
  const decoder = new TextDecoder("utf-8", { fatal: true });
  return async (c) => {
    const length = c.req.header("content-length");
    if (opts.optional && (length === "0" || (length === undefined && c.req.header("transfer-encoding") === undefined))) {
      c.set("body", {});
      return validated(c, "json", schema, {});
    }
    if (!JSON_TYPE.test(c.req.header("content-type") ?? "")) return jsonError(c, new DomainError("CONTENT_TYPE_NOT_JSON"));
    // A coded body is not the JSON its bytes would be read as: gzip was a misleading "must be
    // UTF-8", and a plain body labelled gzip was accepted. 415 with Accept-Encoding (RFC 9110 §15.5.16).
    if (!IDENTITY.test(c.req.header("content-encoding") ?? "identity")) {
      return jsonError(c, new DomainError("CONTENT_ENCODING_UNSUPPORTED"), { "Accept-Encoding": "identity" });
    }
    const tooLarge = () => jsonError(c, new DomainError("BODY_TOO_LARGE", { maxBytes }));
    if (Number(length ?? 0) > maxBytes) return tooLarge();
    let bytes: Uint8Array | null;
    try {
      // With a Content-Length (and no chunked framing) the body is exactly that long: read it at once.
      if (length !== undefined && c.req.header("transfer-encoding") === undefined) bytes = await c.req.raw.bytes();
      else bytes = await readCapped(c.req.raw.body, maxBytes);
    } catch {
      // The client closed the connection, or stalled past the server's idle timeout, before its
      // Content-Length or last chunk: its request, not our failure (it was an "unhandled error"
      // logged as an error and counted as a 500). Nobody may be left to read this answer.
      return jsonError(c, new DomainError("BODY_INCOMPLETE"));
    }
    if (bytes === null) return tooLarge();
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return jsonError(c, new DomainError("BODY_NOT_UTF8"));
    }
    if (text.length === 0) return jsonError(c, new DomainError("BODY_REQUIRED"));
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch {
      return jsonError(c, new DomainError("MALFORMED_JSON"));
    }
    c.set("body", input);
    return validated(c, "json", schema, input);
  };
}
