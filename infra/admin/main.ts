import { commonEnv, connectBus, createLogger, loadConfig, resolveNatsUrl } from "@payaccept/platform";
import { describeError, parseFlags, UsageError, type Command } from "./cli.ts";
import { shopCommands } from "./commands/shops.ts";
import { webhookCommands } from "./commands/webhooks.ts";
import { moneyCommands } from "./commands/money.ts";
import { receiptCommands } from "./commands/receipts.ts";

/** `bun run admin <command> [flags]`: operates the running stack over NATS, never its files. */
const commands: Record<string, Command> = { ...shopCommands, ...webhookCommands, ...moneyCommands, ...receiptCommands };

function usage(): string {
  return ["usage: bun run admin <command> [flags]", ...Object.entries(commands).map(([n, c]) => `  ${n} ${c.usage}`)].join("\n");
}

const [name, ...argv] = process.argv.slice(2);
const cmd = name ? commands[name] : undefined;
if (!cmd) {
  console.error(name && name !== "help" && name !== "--help" ? `unknown command: ${name}\n${usage()}` : usage());
  process.exit(name === "help" || name === "--help" ? 0 : 2);
}

const cfg = loadConfig(commonEnv);
const log = createLogger("admin", "warn");
let code = 0;
try {
  const flags = parseFlags(cmd, argv);
  const nc = await Promise.race([
    connectBus(resolveNatsUrl(cfg), "admin-cli", log),
    Bun.sleep(5000).then(() => {
      throw new Error(`cannot reach NATS at ${resolveNatsUrl(cfg)} (is the stack running?)`);
    }),
  ]);
  const print = (v: unknown) =>
    console.log(flags.json ? JSON.stringify(v) : typeof v === "string" ? v : JSON.stringify(v, null, 2));
  try {
    await cmd.run({ nc, flags, timeoutMs: cfg.NATS_REQUEST_TIMEOUT_MS, print });
  } finally {
    await nc.close();
  }
} catch (e) {
  console.error(e instanceof UsageError ? `${e.message}\n  ${name} ${cmd.usage}` : `error: ${describeError(e)}`);
  code = e instanceof UsageError ? 2 : 1;
}
process.exit(code);
