import { parseArgs } from "node:util";
import { DomainError } from "@payaccept/contracts";
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

export function parseFlags(cmd: Command, argv: string[]): Flags {
  const options: Record<string, { type: "string" | "boolean" }> = { json: { type: "boolean" } };
  for (const [k, t] of Object.entries(cmd.flags)) options[k] = { type: t };
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as Flags;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function describeError(e: unknown): string {
  if (e instanceof DomainError) return `${e.code}: ${Array.isArray(e.messages) ? e.messages.join("; ") : e.messages}`;
  return (e as Error).message ?? String(e);
}
