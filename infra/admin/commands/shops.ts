import { PaymentMethod, rpcs } from "@payaccept/contracts";
import { call } from "@payaccept/platform";
import { requireFlag, UsageError, type Command, type Flags } from "../cli.ts";

/** "SBP,CARD" → ["SBP", "CARD"]; undefined when the flag is absent. */
function methodsFlag(flags: Flags): PaymentMethod[] | undefined {
  const raw = flags.methods;
  if (typeof raw !== "string") return undefined;
  const parsed = PaymentMethod.array().min(1).safeParse(raw.split(",").map((m) => m.trim().toUpperCase()).filter(Boolean));
  if (!parsed.success) throw new UsageError(`--methods must be a comma-separated list of ${PaymentMethod.options.join(", ")}`);
  return parsed.data;
}

/** A string flag as given ("" clears a link), or undefined when absent. */
const optional = (flags: Flags, name: string) => (typeof flags[name] === "string" ? (flags[name] as string) : undefined);

const setActive = (active: boolean): Command => ({
  usage: "--shop ID [--json]",
  flags: { shop: "string" },
  run: async ({ nc, flags, timeoutMs, print }) =>
    print(await call(nc, rpcs.directory.setActive, { shopId: requireFlag(flags, "shop"), active }, timeoutMs)),
});

/** --password, else the first line of stdin (keeps it out of the process list and shell history). */
async function passwordFlag(flags: Flags): Promise<string> {
  if (typeof flags.password === "string") return flags.password;
  const line = (await Bun.stdin.text()).split(/\r?\n/)[0] ?? "";
  if (line.length === 0) throw new UsageError("--password is required (or give it on stdin)");
  return line;
}

export const shopCommands: Record<string, Command> = {
  "shop:create": {
    usage: "--name NAME [--sandbox] [--webhook-url URL] [--methods SBP,CARD] [--account ACCOUNT_ID] [--json]",
    flags: { name: "string", sandbox: "boolean", "webhook-url": "string", methods: "string", account: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const created = await call(
        nc,
        rpcs.directory.createShop,
        {
          name: requireFlag(flags, "name"),
          sandbox: flags.sandbox === true,
          webhookUrl: optional(flags, "webhook-url"),
          methods: methodsFlag(flags),
          accountId: optional(flags, "account"),
        },
        timeoutMs,
      );
      print(created);
    },
  },
  "shop:deactivate": setActive(false),
  "shop:activate": setActive(true),
  "shop:update": {
    usage: "--shop ID [--name NAME] [--webhook-url URL] [--methods SBP,CARD] [--success-url URL] [--fail-url URL] [--json]  (\"\" clears a URL)",
    flags: { shop: "string", name: "string", "webhook-url": "string", methods: "string", "success-url": "string", "fail-url": "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const shopId = requireFlag(flags, "shop");
      const changes = {
        name: optional(flags, "name"),
        webhookUrl: optional(flags, "webhook-url"),
        methods: methodsFlag(flags),
        successUrl: optional(flags, "success-url"),
        failUrl: optional(flags, "fail-url"),
      };
      if (Object.values(changes).every((v) => v === undefined)) throw new UsageError("nothing to change");
      print(await call(nc, rpcs.directory.updateShop, { shopId, ...changes }, timeoutMs));
    },
  },
  "key:rotate": {
    usage: "--shop ID [--json]  (the old key stops working at once; the new one is shown only now)",
    flags: { shop: "string" },
    run: async ({ nc, flags, timeoutMs, print }) =>
      print(await call(nc, rpcs.directory.rotateKey, { shopId: requireFlag(flags, "shop") }, timeoutMs)),
  },
  "user:create-operator": {
    usage: "--email EMAIL [--password PASSWORD] [--json]  (without --password, the first line of stdin)",
    flags: { email: "string", password: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const req = { email: requireFlag(flags, "email"), password: await passwordFlag(flags) };
      print(await call(nc, rpcs.dashboard.createOperator, req, timeoutMs));
    },
  },
  "user:create-merchant": {
    usage: "--email EMAIL --account ACCOUNT_ID [--password PASSWORD] [--json]  (the owner of the account's team; the owner invites the rest from the dashboard)",
    flags: { email: "string", account: "string", password: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const req = { email: requireFlag(flags, "email"), accountId: requireFlag(flags, "account"), password: await passwordFlag(flags) };
      print(await call(nc, rpcs.dashboard.createMerchant, req, timeoutMs));
    },
  },
  "user:reset-two-factor": {
    usage: "--email EMAIL [--json]  (lost app and recovery codes: the second factor goes, sessions end; the user enrols again)",
    flags: { email: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => print(await call(nc, rpcs.dashboard.resetTwoFactor, { email: requireFlag(flags, "email") }, timeoutMs)),
  },
  "secret:rotate": {
    usage: "--shop ID [--json]  (webhooks are signed with the new secret from now on)",
    flags: { shop: "string" },
    run: async ({ nc, flags, timeoutMs, print }) =>
      print(await call(nc, rpcs.directory.rotateSecret, { shopId: requireFlag(flags, "shop") }, timeoutMs)),
  },
};
