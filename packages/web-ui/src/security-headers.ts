import type { Context } from "hono";

/**
 * Headers of every HTML page. Scripts and styles only from our own origin (no inline code at all);
 * forms only to us and, when given, to one other origin (the acquirer whose card form the payment
 * page shows), so form data can reach nowhere else.
 */
export function setPageSecurityHeaders(c: Context, formTarget?: string): void {
  const other = formTarget ? URL.parse(formTarget)?.origin : undefined;
  const formAction = other && other !== "null" ? `'self' ${other}` : "'self'";
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
  // Keeps the Origin header on a cross-origin form POST (the acquirer checks it) while sending
  // other sites nothing but our origin: paths carry payment and shop ids.
  c.header("Referrer-Policy", "strict-origin-when-cross-origin");
  c.header("Cross-Origin-Opener-Policy", "same-origin");
  c.header("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
  c.header("Cache-Control", "no-store");
}
