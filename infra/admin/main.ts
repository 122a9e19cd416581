import { hostname, userInfo } from "node:os";
import { z } from "zod";
import { actAs, commonEnv, connectBus, createLogger, loadConfig, resolveNatsUrl } from "@payaccept/platform";
import { commandUsage, isHelpFlag, parseFlags, reportError, usageOf, UsageError, type Command } from "./cli.ts";
import { shopCommands } from "./commands/shops.ts";
import { webhookCommands } from "./commands/webhooks.ts";
import { moneyCommands } from "./commands/money.ts";
import { payoutCommands } from "./commands/payouts.ts";
import { receiptCommands } from "./commands/receipts.ts";
import { auditCommands } from "./commands/audit.ts";
import { methodCommands } from "./commands/methods.ts";
import { connectorCommands } from "./commands/connectors.ts";
import { backupCommands } from "./commands/backup.ts";

/** `bun run admin <command> [flags]`: operates the running stack over NATS, never its files. */
const commands: Record<string, Command> = { ...shopCommands, ...connectorCommands, ...webhookCommands, ...moneyCommands, ...payoutCommands, ...receiptCommands, ...methodCommands, ...auditCommands, ...backupCommands };

const [name, ...argv] = process.argv.slice(2);
const json = argv.includes("--json") || name === "--json";

// Help is an answer, not a mistake: stdout and exit 0, without reaching NATS.
if (name === undefined || name === "help" || isHelpFlag(name)) {
  const topic = name === "help" ? argv[0] : undefined;
  const target = topic ? commands[topic] : undefined;
  if (topic && !target) process.exit(reportError(new UsageError(`unknown command: ${topic}`), json, usageOf(commands)));
  // No command at all is a mistake: the same text, but on stderr with the usage exit code.
  if (name === undefined) console.error(usageOf(commands));
  else console.log(target ? commandUsage(topic!, target) : usageOf(commands));
  process.exit(name === undefined ? 2 : 0);
}
const cmd = commands[name];
if (!cmd) process.exit(reportError(new UsageError(`unknown command: ${name}`), json, usageOf(commands)));
if (argv.some(isHelpFlag)) {
  console.log(commandUsage(name, cmd));
  process.exit(0);
}

// A person waits on a command, and a command may wait on a busy host (a password hashed, a CSV
// gathered): more patience than a service's calls, whose callers are waiting in their turn.
const cfg = loadConfig({ ...commonEnv, ADMIN_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000) });
// Log lines (the bus's "still trying" while NATS cannot be reached, …) go to stderr at the
// configured level: stdout carries only the command's output, one JSON document with --json.
const log = createLogger("admin", cfg.LOG_LEVEL, "stderr");
let code = 0;
try {
  const flags = parseFlags(cmd, argv);
  const nc = await Promise.race([
    connectBus(resolveNatsUrl(cfg), "admin-cli", log, cfg),
    Bun.sleep(5000).then(() => {
      throw new Error(`cannot reach NATS at ${resolveNatsUrl(cfg)} (is the stack running?)`);
    }),
  ]);
  // Whatever a command changes is recorded in the audit log as this operator's doing: the OS user and host it ran as.
  actAs(nc, { kind: "cli", label: `${userInfo().username}@${hostname()}`.slice(0, 320) });
  const print = (v: unknown) => console.log(json ? JSON.stringify(v) : typeof v === "string" ? v : JSON.stringify(v, null, 2));
  try {
    await cmd.run({ nc, flags, timeoutMs: cfg.ADMIN_TIMEOUT_MS, print });
  } finally {
    await nc.close();
  }
} catch (e) {
  code = reportError(e, json, `  ${name} ${cmd.usage}`);
}
process.exit(code);
