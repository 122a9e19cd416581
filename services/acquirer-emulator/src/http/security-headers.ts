import type { Context } from "hono";

/**
 * A strict policy for the bank pages: only our stylesheet, no scripts at all, forms only to the
 * emulator itself and to where the session returns the buyer (a 303 after a form POST counts as the
 * form's target in form-action).
 */
export function setPageSecurityHeaders(c: Context, formTargets: string[] = []): void {
  const formAction = ["'self'", ...formTargets].join(" ");
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; style-src 'self'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  c.header("X-Content-Type-Options", "nosniff");
  // same-origin keeps the Origin header on our own form POSTs (no-referrer would turn it into "null").
  c.header("Referrer-Policy", "same-origin");
  c.header("Cache-Control", "no-store");
}
