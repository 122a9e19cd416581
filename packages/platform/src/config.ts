import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";

/** The repository (or the image's /app): where a relative DATA_DIR starts. */
const REPO_ROOT = resolve(import.meta.dir, "../../..");

/** The share of the traces begun in a process that the ratio samplers keep whole, by default. */
export const DEFAULT_TRACE_RATIO = 0.01;

/** Every service reads these; the README's configuration table lists them with their defaults. */
export const commonEnv = {
  NATS_URL: z.string().min(1).optional(),
  /**
   * Relative to the repository root, not the working directory: a service started from its own
   * folder (`cd services/gateway && bun run start`) must find the stack's store and nats.url.
   */
  DATA_DIR: z
    .string()
    .min(1)
    .default("./.data")
    .transform((dir) => resolve(REPO_ROOT, dir)),
  /** Where a service writes the copies of its store that `bun run admin backup` asks for (default: $DATA_DIR/backups). */
  BACKUP_DIR: z
    .string()
    .min(1)
    .optional()
    .transform((dir) => (dir === undefined ? undefined : resolve(REPO_ROOT, dir))),
  /** Interface the service's HTTP server binds to. */
  HOST: z.string().min(1).default("0.0.0.0"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Replicas of the payment-event stream and the directory bucket: 1 on one node, 3 on a cluster. */
  NATS_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** Longest graceful shutdown before the process exits anyway. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(300_000).default(10_000),
  /** Timeout of every NATS request a service makes, in milliseconds. */
  NATS_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(50).max(60000).default(3000),
  ...busEnv(),
  ...tracingEnv(),
};

/**
 * How the NATS connection notices a hung server and moves on (docs/nats.md, "How a client
 * moves off a NATS node"): a server that answers no ping for NATS_MAX_PINGS_OUT intervals is given up, and a
 * server that sends no handshake within NATS_CONNECT_TIMEOUT is passed over for the next one.
 * A declaration, so that commonEnv above can spread it.
 */
function busEnv() {
  return {
    NATS_PING_INTERVAL: duration("1s"),
    NATS_MAX_PINGS_OUT: z.coerce.number().int().min(1).max(10).default(2),
    NATS_CONNECT_TIMEOUT: duration("2s"),
    NATS_RECONNECT_WAIT: duration("250ms"),
    /** random spreads the clients over the nodes; given tries them in NATS_URL's order (the nearest first). */
    NATS_SERVER_ORDER: z.enum(["random", "given"]).default("random"),
    /**
     * Silence after which an idempotent request is sent again (hedge.ts); 0 never. Well above the
     * services' answer times (milliseconds), well below NATS_REQUEST_TIMEOUT_MS.
     */
    NATS_HEDGE_AFTER: duration("300ms"),
    /**
     * A peer process whose clock is surely further from this one's is logged as a warning
     * (peer-clocks.ts); the offsets are the metric clock_offset_seconds whatever their size.
     */
    CLOCK_OFFSET_WARN: duration("500ms"),
  };
}

/** A variable with a default (`schema` has it) set to the empty string (compose's `${X:-}`) gets the default. A declaration: commonEnv uses it above. */
function emptyIsDefault<S extends z.ZodType>(schema: S) {
  return z.preprocess((v) => (v === "" ? undefined : v), schema);
}

/** A variable set to the empty string counts as unset. */
export function unsetIfEmpty<S extends z.ZodType>(schema: S) {
  return emptyIsDefault(schema.optional());
}

/**
 * OpenTelemetry's standard variables, as far as traces go (tracing.ts, docs/observability.md
 * "Traces"): without an endpoint nothing is set up and no span is ever made. Only OTLP over HTTP
 * is exported; gRPC is refused at start rather than silently sending nothing.
 */
function tracingEnv() {
  const protocol = unsetIfEmpty(
    z.enum(["http/json", "http/protobuf"], { message: "only OTLP over HTTP is exported: http/protobuf (the default) or http/json" }),
  );
  const httpUrl = z.url({ protocol: /^https?$/, message: "an http(s) URL, e.g. http://jaeger:4318" });
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: unsetIfEmpty(httpUrl),
    /** The full URL of the traces (…/v1/traces), over OTEL_EXPORTER_OTLP_ENDPOINT. */
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: unsetIfEmpty(httpUrl),
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
    /** Default: the service's own name (gateway, payments, …), in the namespace payaccept. */
    OTEL_SERVICE_NAME: unsetIfEmpty(z.string().min(1)),
    /** Which traces are kept where they begin; the others follow (docs/observability.md, "Sampling"). */
    OTEL_TRACES_SAMPLER: emptyIsDefault(
      z
        .enum(["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"])
        .default("parentbased_traceidratio"),
    ),
    /** The ratio of the traceidratio samplers, 0 to 1. */
    OTEL_TRACES_SAMPLER_ARG: emptyIsDefault(z.coerce.number().min(0).max(1).default(DEFAULT_TRACE_RATIO)),
    /** A span of a trace not sampled is still exported when it failed or took at least this long (the ratio samplers only). */
    TRACES_KEEP_SLOWER_THAN: duration("1s"),
    /** Longest wait of a finished span before it is exported. */
    OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).max(60_000).default(5000),
    /** Finished spans held for export at most; beyond it they are dropped (counted in the SDK's diagnostics), never the process's memory. */
    OTEL_BSP_MAX_QUEUE_SIZE: z.coerce.number().int().min(1).max(1_000_000).default(2048),
    /** Spans sent in one export request at most. */
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(100_000).default(512),
    /** true turns tracing off whatever the endpoint says. */
    OTEL_SDK_DISABLED: z.enum(["true", "false", ""]).default("false").transform((v) => v === "true"),
  };
}

export type TracingConfig = z.output<z.ZodObject<ReturnType<typeof tracingEnv>>>;

export type BusTuning = z.output<z.ZodObject<ReturnType<typeof busEnv>>>;
/** The tuning of a process that reads no configuration of its own (bench servers). */
export const defaultBusTuning = (): BusTuning => parseConfig(busEnv(), {});

export const port = (dflt: number) => z.coerce.number().int().min(0).max(65535).default(dflt);
export const flag = (dflt: boolean) =>
  z
    .enum(["0", "1", "true", "false", ""])
    .default(dflt ? "1" : "0")
    .transform((v) => v === "1" || v === "true");
/** Durations like 500ms, 20s, 20m, 2h, 1d, or plain milliseconds. A declaration: commonEnv uses it above. */
export function duration(dflt: string) {
  return z
    .string()
    .default(dflt)
    .transform((v, ctx) => {
      const ms = parseDuration(v);
      if (ms === null) {
        ctx.addIssue({ code: "custom", message: `"${v}" is not a duration (e.g. 500ms, 30s, 20m, 2h, 1d)` });
        return z.NEVER;
      }
      return ms;
    });
}

/** "1m,5m,30m" → [60000, 300000, 1800000]; empty means none. */
export const durationList = (dflt: string) =>
  z
    .string()
    .default(dflt)
    .transform((v, ctx) => {
      const parts = v.split(",").map((p) => p.trim()).filter((p) => p.length > 0);
      const ms = parts.map(parseDuration);
      if (ms.some((d) => d === null) || parts.length > 20) {
        ctx.addIssue({ code: "custom", message: `"${v}" is not a list of up to 20 durations (e.g. 1m,5m,30m,2h,6h,24h)` });
        return z.NEVER;
      }
      return ms as number[];
    });

/**
 * How webhooks are delivered: the dispatcher acts on these and the gateway states them in the
 * API's OpenAPI document, so both read the same variables through this one definition.
 */
export const webhookDeliveryEnv = {
  /** Spec §6: the receiver has 5 s to answer (connect, TLS and response headers included). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(5000),
  /** Pauses before the 2nd, 3rd, … attempt; attempts in all = entries + 1. */
  WEBHOOK_RETRY_DELAYS: durationList("1m,5m,30m,2h,6h,24h"),
};

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
export function parseDuration(v: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(v);
  if (!m) return null;
  return Math.round(Number(m[1]) * UNITS[m[2] ?? "ms"]!);
}

export class ConfigError extends Error {}

/** A rule over several variables: the problems it finds, each naming the variables, or none. */
export type ConfigCheck<T extends z.ZodRawShape> = (cfg: z.output<z.ZodObject<T>>) => string[];

/** Parses the environment against the shape (then the check); throws ConfigError naming every bad variable. */
export function parseConfig<T extends z.ZodRawShape>(shape: T, env: Record<string, string | undefined> = process.env, check?: ConfigCheck<T>) {
  const result = z.object(shape).safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid configuration: ${lines.join("; ")}`);
  }
  const problems = check?.(result.data) ?? [];
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join("; ")}`);
  return result.data;
}

/** parseConfig for a service's main: prints one clear line and exits instead of a stack trace. */
export function loadConfig<T extends z.ZodRawShape>(shape: T, env: Record<string, string | undefined> = process.env, check?: ConfigCheck<T>) {
  try {
    return parseConfig(shape, env, check);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(78);
    }
    throw e;
  }
}

/** NATS_URL, else the URL the stack launcher wrote to $DATA_DIR/nats.url, else the local default. */
export function resolveNatsUrl(cfg: { NATS_URL?: string; DATA_DIR: string }): string {
  if (cfg.NATS_URL) return cfg.NATS_URL;
  const file = join(resolve(cfg.DATA_DIR), "nats.url");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  return "nats://127.0.0.1:4222";
}
