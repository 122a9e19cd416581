import { createHash, timingSafeEqual } from "node:crypto";

/**
 * The Token as T-Bank's documentation describes it ("Токен"), written from that text for the fake
 * bank, apart from the connector's own (the fake must not share the code it checks): take the
 * root object's parameters, leave out nested objects and arrays (DATA, Receipt), add Password,
 * sort by key, concatenate the values, SHA-256 over UTF-8, hex.
 */
export function bankToken(body: Record<string, unknown>, password: string): string {
  const keys = Object.keys(body).filter((k) => k !== "Token" && body[k] !== null && typeof body[k] !== "object");
  const withPassword: Record<string, string> = { Password: password };
  for (const k of keys) withPassword[k] = String(body[k]);
  const concatenated = Object.keys(withPassword)
    .sort()
    .map((k) => withPassword[k])
    .join("");
  return createHash("sha256").update(concatenated, "utf8").digest("hex");
}

/** How the bank checks a request: the Token it carries against the one it computes. */
export function bankTokenValid(body: Record<string, unknown>, password: string): boolean {
  const given = typeof body.Token === "string" ? Buffer.from(body.Token) : Buffer.alloc(0);
  const expected = Buffer.from(bankToken(body, password));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
