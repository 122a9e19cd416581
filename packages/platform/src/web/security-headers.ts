import type { Context } from "hono";

/**
 * Headers of every page. Scripts and styles only from our own origin (no inline code at all);
 * forms only to us and to the acquirer whose card form the page shows, so card data can reach the
 * provider but nowhere else.
 */
export function setPageSecurityHeaders(c: Context, cardFormAction?: string): void {
  const provider = cardFormAction ? URL.parse(cardFormAction)?.origin : undefined;
  const formAction = provider && provider !== "null" ? `'self' ${provider}` : "'self'";
  c.header(
    "Content-Security-Policy",
    [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      `form-action ${formAction}`,
      "frame-ancestors 'none'",
    ].join("; "),
  );
  c.header("X-Content-Type-Options", "nosniff");
  c.header("X-Frame-Options", "DENY");
  // Keeps the Origin header on the card form's cross-origin POST (the acquirer checks it) while
  // sending other sites nothing but our origin.
  c.header("Referrer-Policy", "strict-origin-when-cross-origin");
  c.header("Cross-Origin-Opener-Policy", "same-origin");
  c.header("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
  c.header("Cache-Control", "no-store");
}
