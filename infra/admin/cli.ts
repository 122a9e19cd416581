import { parseArgs } from "node:util";
import { DomainError, IsoDateTime, Uuid } from "@payaccept/contracts";
import type { NatsConnection } from "@payaccept/platform";

export type Flags = Record<string, string | boolean | undefined>;

export type Command = {
  /** One line for the usage text, e.g. "--shop ID [--json]". */
  usage: string;
  /** Flag names this command accepts; "boolean" ones take no value. */
  flags: Record<string, "string" | "boolean">;
  run: (ctx: { nc: NatsConnection; flags: Flags; timeoutMs: number; print: (v: unknown) => void }) => Promise<void>;
};

/** A missing or malformed flag: printed as one line, exit code 2. */
export class UsageError extends Error {}

export function requireFlag(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== "string" || v.length === 0) throw new UsageError(`--${name} is required`);
  return v;
}

/**
 * The shapes a flag can be checked against here, with the words that say what was expected: the
 * contract's own schemas, so a flag passes exactly when the service would take it.
 */
const SHAPES = {
  uuid: [Uuid, "a UUID"],
  time: [IsoDateTime, "an ISO 8601 time with its offset, e.g. 2026-11-24T00:00:00Z"],
} as const;

/**
 * A required flag of a given shape. A malformed one is the caller's usage mistake, named by its
 * flag (exit 2), not the service's BAD_REQUEST about a field the caller never typed ("id: …").
 */
export function requireShaped(flags: Flags, name: string, shape: keyof typeof SHAPES): string {
  const value = requireFlag(flags, name);
  const [schema, expected] = SHAPES[shape];
  if (!schema.safeParse(value).success) throw new UsageError(`--${name} must be ${expected}`);
  return value;
}

export function parseFlags(cmd: Command, argv: string[]): Flags {
  const options: Record<string, { type: "string" | "boolean" }> = { json: { type: "boolean" } };
  for (const [k, t] of Object.entries(cmd.flags)) options[k] = { type: t };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: false, tokens: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  // parseArgs keeps the last of a repeated flag: "key:rotate --shop A --shop B" would rotate B's
  // key while the operator may have meant A. Two values for one flag are a mistake, said as one.
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== "option" || token.value === undefined) continue;
    if (seen.has(token.name)) throw new UsageError(`--${token.name} is given twice`);
    seen.add(token.name);
  }
  return parsed.values as Flags;
}

export function describeError(e: unknown): string {
  if (e instanceof DomainError) return `${e.code}: ${Array.isArray(e.messages) ? e.messages.join("; ") : e.messages}`;
  return (e as Error).message ?? String(e);
}

const HELP_FLAGS = new Set(["-h", "--help"]);
export const isHelpFlag = (arg: string | undefined) => arg !== undefined && HELP_FLAGS.has(arg);

export function usageOf(commands: Record<string, Command>): string {
  return [
    "usage: bun run admin <command> [flags]",
    "       bun run admin <command> --help   (that command's flags)",
    "",
    "commands:",
    ...Object.entries(commands).map(([n, c]) => `  ${n} ${c.usage}`),
    "",
    "--json prints results, and errors as {\"error\":{\"code\",\"message\",\"reason\",\"params\"}}, as one JSON document on stdout.",
    "exit codes: 0 done, 1 refused or failed, 2 usage mistake.",
  ].join("\n");
}

export function commandUsage(name: string, cmd: Command): string {
  const flags = Object.entries(cmd.flags).map(([f, t]) => `  --${f}${t === "string" ? " VALUE" : ""}`);
  return [`usage: bun run admin ${name} ${cmd.usage}`, "", "flags:", ...flags, "  --json   one JSON document on stdout, errors included", "  -h, --help   this text"].join("\n");
}

/**
 * An error as the CLI reports it. With --json it is one JSON document on stdout, so a script reads
 * stdout only, whatever happened; otherwise one line on stderr. The exit code says which kind.
 */
export function reportError(e: unknown, json: boolean, hint: string): number {
  const usage = e instanceof UsageError;
  const code = usage ? "USAGE" : e instanceof DomainError ? e.code : "FAILED";
  const message = usage ? e.message : e instanceof DomainError ? (Array.isArray(e.messages) ? e.messages.join("; ") : e.messages) : describeError(e);
  const reason = e instanceof DomainError ? { reason: e.reason, params: e.params } : {};
  if (json) console.log(JSON.stringify({ error: { code, message, ...reason } }));
  else console.error(usage ? `${e.message}\n${hint}` : `error: ${describeError(e)}`);
  return usage ? 2 : 1;
}
