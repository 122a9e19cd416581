import { WebhookUrlInput } from "@payaccept/contracts";
import { isPublicHostname } from "@payaccept/domain";

export type WebhookUrlPolicy = {
  /** WEBHOOK_ALLOW_PRIVATE: development and test stacks whose receivers run on loopback. */
  allowPrivate: boolean;
};

/**
 * Problems with a webhook URL (empty when acceptable), judged at the time it is set.
 * - Live shops: https only. Sandbox shops may use plain http (spec §6 only recommends https,
 *   and merchants test integrations behind tunnels), but never a private address.
 * - Every shop: a public host. A private address would let any merchant make our dispatcher
 *   reach into our own network (SSRF), sandbox or not.
 * - No credentials in the URL: the URL is shown in the dashboard and written to logs.
 * WEBHOOK_ALLOW_PRIVATE lifts the address and scheme rules for every shop, for dev/test stacks.
 * The dispatcher checks the resolved address again at connect time (DNS can change).
 */
export function webhookUrlProblems(value: string, sandbox: boolean, policy: WebhookUrlPolicy): string[] {
  const parsed = WebhookUrlInput.safeParse(value);
  if (!parsed.success) return parsed.error.issues.map((i) => i.message);
  const url = new URL(value);
  const problems: string[] = [];
  const schemes = policy.allowPrivate || sandbox ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) problems.push(`must use ${schemes.map((s) => s.slice(0, -1)).join(" or ")}`);
  if (url.username || url.password) problems.push("must not contain credentials");
  if (!policy.allowPrivate && !isPublicHostname(url.hostname)) problems.push("must point to a public address, not a private network");
  return problems;
}
