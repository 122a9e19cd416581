import type { JsMsg } from "@nats-io/jetstream";
import type { Logger } from "@payaccept/platform";
import type { z } from "zod";

/**
 * The message's JSON checked against its schema, or undefined after terminating it: a message
 * that does not match can never be handled, so redelivering it would only loop.
 */
export function decodeOrTerm<S extends z.ZodType>(m: JsMsg, schema: S, what: string, log: Logger): z.output<S> | undefined {
  let body: unknown;
  try {
    body = m.json();
  } catch {
    body = undefined;
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  log.error({ subject: m.subject, seq: m.seq, issues: parsed.error.issues }, `${what} does not match its contract; terminated`);
  m.term(`invalid ${what}`);
  return undefined;
}
