import pino from "pino";
import { currentTraceIds, tracingOn } from "./tracing.ts";

export type Logger = pino.Logger;

/** Keys whose values never reach a log line, wherever they sit in a logged object. */
const SECRET_KEYS = new Set(["apiKey", "signingSecret", "password", "pan", "cvc", "card", "x-api-key"]);
const CENSOR = "[redacted]";
/** Logged objects are a few levels deep at most; deeper values are left as they are. */
const MAX_DEPTH = 3;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Error);
}

/**
 * A copy of `obj` with every secret or card value replaced (API keys, signing secrets, passwords,
 * card number and code, an X-Api-Key header), at the top level and in nested objects; `obj`
 * itself is returned untouched when it holds none, so a line without secrets costs one pass over
 * its keys. Errors are left to pino's serializer. (pino's own path redaction, @pinojs/redact,
 * parses its paths again on every line: a tenth of the gateway's CPU per request.)
 */
export function redactSecrets(obj: Record<string, unknown>, depth = 0): Record<string, unknown> {
  let out = obj;
  for (const key in obj) {
    const value = obj[key];
    let replaced: unknown = value;
    if (SECRET_KEYS.has(key)) replaced = CENSOR;
    else if (depth < MAX_DEPTH && isPlainObject(value)) replaced = redactSecrets(value, depth + 1);
    if (replaced !== value) {
      if (out === obj) out = { ...obj };
      out[key] = replaced;
    }
  }
  return out;
}

/**
 * Structured JSON, one line per request or event; secrets and card data are redacted by key.
 * Services log to stdout; "stderr" is for a command whose stdout is its output (the admin CLI's
 * `--json`), written synchronously so that no line is lost when the command exits. While tracing
 * is on (a logger made after startTracing), every line written inside a span carries its
 * `traceId` and `spanId`; off, no mixin is installed at all. pino merges each line's fields INTO
 * the object the mixin returns, so it must be a new object every time: one shared `{}` for lines
 * outside a span gathered every such line's fields and handed them to the next.
 */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? "info", destination?: pino.DestinationStream | "stderr"): Logger {
  const options: pino.LoggerOptions = { level, base: { service }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { log: redactSecrets } };
  if (tracingOn()) options.mixin = () => currentTraceIds() ?? {};
  if (destination === "stderr") return pino(options, pino.destination({ dest: 2, sync: true }));
  return destination ? pino(options, destination) : pino(options);
}
