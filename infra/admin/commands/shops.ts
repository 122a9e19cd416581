import { MAX_KEY_OVERLAP_MS, MAX_SECRET_OVERLAP_MS, PaymentMethod, rpcs, SaveMethodConsent } from "@payaccept/contracts";
import { call, parseDuration } from "@payaccept/platform";
import { requireFlag, UsageError, type Command, type Flags } from "../cli.ts";

/** "SBP,CARD" → ["SBP", "CARD"]; undefined when the flag is absent. */
function methodsFlag(flags: Flags): PaymentMethod[] | undefined {
  const raw = flags.methods;
  if (typeof raw !== "string") return undefined;
  const parsed = PaymentMethod.array().min(1).safeParse(raw.split(",").map((m) => m.trim().toUpperCase()).filter(Boolean));
  if (!parsed.success) throw new UsageError(`--methods must be a comma-separated list of ${PaymentMethod.options.join(", ")}`);
  return parsed.data;
}

/** --saved-method-consent ALWAYS | BUYER_CHOICE; undefined when absent. */
function consentFlag(flags: Flags): SaveMethodConsent | undefined {
  const raw = optional(flags, "saved-method-consent");
  if (raw === undefined) return undefined;
  const parsed = SaveMethodConsent.safeParse(raw.trim().toUpperCase());
  if (!parsed.success) throw new UsageError(`--saved-method-consent must be one of ${SaveMethodConsent.options.join(", ")}`);
  return parsed.data;
}

/** A string flag as given ("" clears a link), or undefined when absent. */
export const optional = (flags: Flags, name: string) => (typeof flags[name] === "string" ? (flags[name] as string) : undefined);

/** --overlap as milliseconds (24h, 7d, 90m, 0); absent: 0, the old credential stops at once. */
function overlapFlag(flags: Flags, maxMs: number, most: string): number {
  const raw = optional(flags, "overlap");
  if (raw === undefined) return 0;
  const ms = parseDuration(raw);
  if (ms === null || ms > maxMs) throw new UsageError(`--overlap must be a duration such as 24h or 90m, at most ${most}`);
  return ms;
}

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
    usage:
      "--shop ID [--name NAME] [--webhook-url URL] [--methods SBP,CARD] [--success-url URL] [--fail-url URL] [--saved-method-consent ALWAYS|BUYER_CHOICE] [--json]  (\"\" clears a URL; the consent: how the payment page asks to save a method)",
    flags: { shop: "string", name: "string", "webhook-url": "string", methods: "string", "success-url": "string", "fail-url": "string", "saved-method-consent": "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const shopId = requireFlag(flags, "shop");
      const changes = {
        name: optional(flags, "name"),
        webhookUrl: optional(flags, "webhook-url"),
        methods: methodsFlag(flags),
        successUrl: optional(flags, "success-url"),
        failUrl: optional(flags, "fail-url"),
        savedMethodConsent: consentFlag(flags),
      };
      if (Object.values(changes).every((v) => v === undefined)) throw new UsageError("nothing to change");
      print(await call(nc, rpcs.directory.updateShop, { shopId, ...changes }, timeoutMs));
    },
  },
  "key:rotate": {
    usage: "--shop ID [--overlap 24h] [--json]  (the new key is shown only now; the old one works for --overlap more, at most 7d, else stops at once)",
    flags: { shop: "string", overlap: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const overlapMs = overlapFlag(flags, MAX_KEY_OVERLAP_MS, "7d");
      print(await call(nc, rpcs.directory.rotateKey, { shopId: requireFlag(flags, "shop"), overlapMs }, timeoutMs));
    },
  },
  "key:list": {
    usage: "--shop ID [--json]  (the live key's prefix, and the rolled keys still working with their expiry)",
    flags: { shop: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const { shop, key, retiringKeys } = await call(nc, rpcs.directory.getShop, { shopId: requireFlag(flags, "shop") }, timeoutMs);
      const at = (ms: number) => new Date(ms).toISOString();
      print({
        shopId: shop.id,
        live: key && { prefix: key.displayPrefix, createdAt: at(key.createdAt) },
        retiring: retiringKeys.map((k) => ({ keyId: k.id, prefix: k.displayPrefix, createdAt: at(k.createdAt), expiresAt: at(k.expiresAt) })),
      });
    },
  },
  "key:end-overlap": {
    usage: "--shop ID [--key KEY_ID] [--json]  (rolled keys still in their overlap stop now; all of the shop's, or the one named)",
    flags: { shop: "string", key: "string" },
    run: async ({ nc, flags, timeoutMs, print }) =>
      print(await call(nc, rpcs.directory.endKeyOverlap, { shopId: requireFlag(flags, "shop"), keyId: optional(flags, "key") }, timeoutMs)),
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
    usage: "--shop ID [--overlap 24h] [--json]  (webhooks are signed with the new secret from now on, and with the old one too for --overlap more, at most 24h)",
    flags: { shop: "string", overlap: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const overlapMs = overlapFlag(flags, MAX_SECRET_OVERLAP_MS, "24h");
      print(await call(nc, rpcs.directory.rotateSecret, { shopId: requireFlag(flags, "shop"), overlapMs }, timeoutMs));
    },
  },
  "secret:end-overlap": {
    usage: "--shop ID [--json]  (the old signing secret stops signing now)",
    flags: { shop: "string" },
    run: async ({ nc, flags, timeoutMs, print }) =>
      print(await call(nc, rpcs.directory.endSecretOverlap, { shopId: requireFlag(flags, "shop") }, timeoutMs)),
  },
};
