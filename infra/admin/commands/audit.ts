import { AuditAction, rpcs } from "@payaccept/contracts";
import { call } from "@payaccept/platform";
import { requireShaped, UsageError, type Command, type Flags } from "../cli.ts";
import { optional } from "./shops.ts";

/** A flag checked like requireShaped, when given. */
const optionalShaped = (flags: Flags, name: string, shape: "time") => (optional(flags, name) === undefined ? undefined : requireShaped(flags, name, shape));

function actionFlag(flags: Flags): AuditAction | undefined {
  const raw = optional(flags, "action");
  if (raw === undefined) return undefined;
  const parsed = AuditAction.safeParse(raw);
  if (!parsed.success) throw new UsageError(`--action must be one of ${AuditAction.options.join(", ")}`);
  return parsed.data;
}

function limitFlag(flags: Flags): number {
  const raw = optional(flags, "limit") ?? "50";
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 500) throw new UsageError("--limit must be a whole number from 1 to 500");
  return Number(raw);
}

export const auditCommands: Record<string, Command> = {
  "audit:list": {
    usage: "[--account ID] [--shop ID] [--action ACTION] [--actor EMAIL|KEY_PREFIX|USER@HOST] [--since ISO] [--until ISO] [--limit 50] [--json]  (the audit log, newest first; every account's without --account)",
    flags: { account: "string", shop: "string", action: "string", actor: "string", since: "string", until: "string", limit: "string" },
    run: async ({ nc, flags, timeoutMs, print }) => {
      const request = {
        accountId: optional(flags, "account"),
        shopId: optional(flags, "shop"),
        action: actionFlag(flags),
        actor: optional(flags, "actor"),
        from: optionalShaped(flags, "since", "time"),
        to: optionalShaped(flags, "until", "time"),
        limit: limitFlag(flags),
      };
      print(await call(nc, rpcs.directory.auditLog, request, timeoutMs));
    },
  },
};
