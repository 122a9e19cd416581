import type { Context } from "hono";
import { DomainError, Uuid } from "@payaccept/contracts";

/** The payment id of the path; anything but a UUID is simply a page that does not exist. */
export function paymentIdOf(c: Context): string {
  const id = c.req.param("id");
  if (!id || !Uuid.safeParse(id).success) throw new DomainError("PAYMENT_NOT_FOUND");
  return id.toLowerCase();
}
