import { HTTPException } from "hono/http-exception";
import { DomainError, ERROR_HTTP_STATUS } from "@payaccept/contracts";

/**
 * The HTTP status of a page's failure. A provider's refusal (BAD_GATEWAY) is, for the buyer or
 * merchant looking at the page, a service that is not available right now: 503.
 */
export function pageStatusOf(err: unknown): number {
  if (err instanceof DomainError) return err.code === "BAD_GATEWAY" ? 503 : ERROR_HTTP_STATUS[err.code];
  if (err instanceof HTTPException) return err.status;
  return 500;
}
