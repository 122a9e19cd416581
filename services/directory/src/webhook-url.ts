import { customIssue, issuesOf, WebhookUrlInput, type ValidationIssue } from "@payaccept/contracts";
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
export function webhookUrlProblems(value: string, sandbox: boolean, policy: WebhookUrlPolicy, path: string): ValidationIssue[] {
  const parsed = WebhookUrlInput.safeParse(value);
  if (!parsed.success) return issuesOf(parsed.error, path);
  const url = new URL(value);
  const problems: ValidationIssue[] = [];
  const httpToo = policy.allowPrivate || sandbox;
  if (url.protocol !== "https:" && !(httpToo && url.protocol === "http:")) {
    problems.push(httpToo ? customIssue(path, "WEBHOOK_URL_HTTP_OR_HTTPS", "must use https or http") : customIssue(path, "WEBHOOK_URL_HTTPS", "must use https"));
  }
  if (url.username || url.password) problems.push(customIssue(path, "WEBHOOK_URL_CREDENTIALS", "must not contain credentials"));
  if (!policy.allowPrivate && !isPublicHostname(url.hostname)) {
    problems.push(customIssue(path, "WEBHOOK_URL_PRIVATE", "must point to a public address, not a private network"));
  }
  return problems;
}
