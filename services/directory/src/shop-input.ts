import { DomainError, PAYMENT_METHODS, ReturnUrl, ShopName, type PaymentMethod } from "@payaccept/contracts";
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
 * canonical order); throws BAD_REQUEST listing every problem at once, like the API does.
 */
export function parseSettings(input: ShopSettings, sandbox: boolean, policy: WebhookUrlPolicy): ShopSettings {
  const problems: string[] = [];
  const parse = <T>(field: string, schema: z.ZodType<T>, value: unknown): T | undefined => {
    const r = schema.safeParse(value);
    if (r.success) return r.data;
    problems.push(...r.error.issues.map((i) => `${field}: ${i.message}`));
  };
  const out: ShopSettings = {};
  if (input.name !== undefined) out.name = parse("name", ShopName, input.name);
  if (input.methods !== undefined) out.methods = PAYMENT_METHODS.filter((m) => input.methods!.includes(m));
  for (const field of ["successUrl", "failUrl"] as const) {
    const v = emptyToNull(input[field]);
    out[field] = v ? parse(field, ReturnUrl, v) : v;
  }
  const webhookUrl = emptyToNull(input.webhookUrl);
  if (webhookUrl) problems.push(...webhookUrlProblems(webhookUrl, sandbox, policy).map((p) => `webhookUrl: ${p}`));
  out.webhookUrl = webhookUrl;
  if (problems.length > 0) throw new DomainError("BAD_REQUEST", problems);
  return out;
}

const emptyToNull = (v: string | null | undefined) => (v === "" ? null : v);
