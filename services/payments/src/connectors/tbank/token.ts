import { safeEqual, sha256Hex } from "@payaccept/platform";

/** A root-level value that takes part in the Token: nested objects and arrays (DATA, Receipt, Shops) do not. */
const signed = (v: unknown): v is string | number | boolean => typeof v === "string" || typeof v === "number" || typeof v === "boolean";

/**
 * T-Bank's request signature (the bank's "Токен" section): the root object's scalar parameters
 * and the terminal's Password, sorted by key, their values concatenated (true/false and numbers as
 * their JSON text) and hashed with SHA-256 over UTF-8, in hex. The same rule signs notifications.
 */
export function tbankToken(params: Record<string, unknown>, password: string): string {
  const pairs: [string, string][] = [["Password", password]];
  for (const [key, value] of Object.entries(params)) if (key !== "Token" && signed(value)) pairs.push([key, String(value)]);
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256Hex(pairs.map(([, v]) => v).join(""));
}

/** Whether `body` (a notification as received, parsed) carries the Token its own fields and the password give; constant time. */
export function tokenMatches(body: Record<string, unknown>, password: string): boolean {
  const given = body.Token;
  return typeof given === "string" && safeEqual(tbankToken(body, password), given.toLowerCase());
}
