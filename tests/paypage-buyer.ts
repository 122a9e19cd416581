/** A buyer's browser reduced to what matters here: one cookie jar, no redirects followed. */
export class Buyer {
  private cookies = new Map<string, string>();
  constructor(private readonly base: string) {}

  async get(path: string): Promise<Response> {
    return this.keep(await fetch(`${this.base}${path}`, { headers: this.headers(), redirect: "manual" }));
  }

  async post(path: string, form: Record<string, string> | string, contentType = "application/x-www-form-urlencoded"): Promise<Response> {
    const body = typeof form === "string" ? form : new URLSearchParams(form).toString();
    return this.keep(await fetch(`${this.base}${path}`, { method: "POST", body, headers: { ...this.headers(), "Content-Type": contentType }, redirect: "manual" }));
  }

  /** The page's HTML and the CSRF token of its forms. */
  async page(path: string): Promise<{ res: Response; html: string; csrf: string | undefined }> {
    const res = await this.get(path);
    const html = await res.text();
    return { res, html, csrf: /name="csrf" value="([0-9a-f]{64})"/.exec(html)?.[1] };
  }

  private headers(): Record<string, string> {
    return this.cookies.size ? { Cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") } : {};
  }

  private keep(res: Response): Response {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return res;
  }
}
