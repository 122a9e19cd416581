import { issuesOf, PAYMENT_METHODS, ReturnUrl, ShopName, validationFailed, type PaymentMethod, type ValidationIssue } from "@payaccept/contracts";
import type { z } from "zod";
import { webhookUrlProblems, type WebhookUrlPolicy } from "./webhook-url.ts";

/** Settings a shop owner can change; undefined leaves a field as it is, null (or "") clears it. */
export type ShopSettings = {
  name?: string;
  webhookUrl?: string | null;
  methods?: PaymentMethod[];
  successUrl?: string | null;
  failUrl?: string | null;
};

/**
 * Validates a settings change and returns it normalized (name trimmed, "" as null, methods in
 * canonical order); throws VALIDATION_FAILED listing every problem at once, like the API does.
 */
export function parseSettings(input: ShopSettings, sandbox: boolean, policy: WebhookUrlPolicy): ShopSettings {
  const problems: ValidationIssue[] = [];
  const parse = <T>(field: string, schema: z.ZodType<T>, value: unknown): T | undefined => {
    const r = schema.safeParse(value);
    if (r.success) return r.data;
    problems.push(...issuesOf(r.error, field));
  };
  const out: ShopSettings = {};
  if (input.name !== undefined) out.name = parse("name", ShopName, input.name);
  if (input.methods !== undefined) out.methods = PAYMENT_METHODS.filter((m) => input.methods!.includes(m));
  for (const field of ["successUrl", "failUrl"] as const) {
    const v = emptyToNull(input[field]);
    out[field] = v ? parse(field, ReturnUrl, v) : v;
  }
  const webhookUrl = emptyToNull(input.webhookUrl);
  if (webhookUrl) problems.push(...webhookUrlProblems(webhookUrl, sandbox, policy, "webhookUrl"));
  out.webhookUrl = webhookUrl;
  if (problems.length > 0) throw validationFailed(problems);
  return out;
}

const emptyToNull = (v: string | null | undefined) => (v === "" ? null : v);
