import { z } from "zod";
import { invalidRequest } from "@payaccept/contracts";
import { parseDuration } from "@payaccept/platform";

/** How long a rolled key keeps working: now, or up to Stripe's 7 days. */
export const KEY_OVERLAPS = ["0", "1h", "24h", "3d", "7d"] as const;
/** How long a rotated secret keeps signing: now, or up to 24 h (Stripe, Svix). */
export const SECRET_OVERLAPS = ["0", "1h", "24h"] as const;
export type OverlapChoice = (typeof KEY_OVERLAPS)[number];

/** The posted choice as milliseconds; the form offers only these, so anything else is a tampered post (400). */
export function overlapMsOf(choices: readonly OverlapChoice[], posted: string): number {
  const parsed = z.enum(choices as [OverlapChoice, ...OverlapChoice[]]).safeParse(posted);
  if (!parsed.success) throw invalidRequest(parsed.error);
  return parseDuration(parsed.data)!;
}
