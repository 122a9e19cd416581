import type { Stack } from "./harness/stack.ts";

/** One HTTP answer of the dashboard, read once. */
export type Answer = { status: number; html: string; headers: Headers; location: string | null };

const API_KEY = /pk_(?:test|live)_[A-Za-z0-9_-]{43}/;
const CSRF = /name="csrf" value="([0-9a-f]{64})"/;

/**
 * A person at the dashboard without a browser: a cookie jar, forms posted with the token the
 * page carried, redirects followed by hand so tests can see them. `address` is the client
 * address the dashboard's trusted proxy (127.0.0.1 in these stacks) reports in X-Forwarded-For.
 */
export class DashboardClient {
  readonly cookies = new Map<string, string>();
  private csrf = "";

  constructor(
    readonly base: string,
    private readonly address = `198.51.100.${1 + Math.floor(Math.random() * 250)}`,
    /** How requests travel: straight to `base`, or through a load balancer (replica-fixtures.ts Rotation). */
    private readonly send: typeof fetch = fetch,
  ) {}

  static of(stack: Stack, address?: string): DashboardClient {
    return new DashboardClient(stack.url("dashboard"), address);
  }

  async get(path: string): Promise<Answer> {
    return this.request(path, { method: "GET" });
  }

  /** Posts a form with the token of the last page this client loaded (unless `csrf` says otherwise). */
  async post(path: string, fields: Record<string, string | string[]> = {}, opts: { csrf?: string | null } = {}): Promise<Answer> {
    const body = new URLSearchParams();
    const token = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (token !== null) body.set("csrf", token);
    for (const [k, v] of Object.entries(fields)) for (const value of Array.isArray(v) ? v : [v]) body.append(k, value);
    return this.request(path, { method: "POST", body, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  }

  /** Posts a multipart form with a file, as a browser's file input does (the token of the last page loaded). */
  async postFile(path: string, field: string, file: { name: string; bytes: Uint8Array }, fields: Record<string, string> = {}): Promise<Answer> {
    const body = new FormData();
    body.set("csrf", this.csrf);
    for (const [k, v] of Object.entries(fields)) body.set(k, v);
    body.set(field, new File([file.bytes as Uint8Array<ArrayBuffer>], file.name, { type: "text/plain" }));
    return this.request(path, { method: "POST", body });
  }

  /** Loads `page` for its form token, then posts the form to `action`. */
  async submit(page: string, action: string, fields: Record<string, string | string[]> = {}): Promise<Answer> {
    await this.get(page);
    return this.post(action, fields);
  }

  /** Follows a 303 the way a browser would. */
  async follow(answer: Answer): Promise<Answer> {
    if (!answer.location) throw new Error(`expected a redirect, got ${answer.status}: ${text(answer.html).slice(0, 300)}`);
    return this.get(answer.location);
  }

  async signUp(email: string, password = "correct horse battery"): Promise<Answer> {
    return this.submit("/signup", "/signup", { email, password });
  }

  async signIn(email: string, password = "correct horse battery", next?: string): Promise<Answer> {
    return this.submit("/login", "/login", { email, password, ...(next ? { next } : {}) });
  }

  /** Creates a shop and returns its id and the API key the card shows once. */
  async createShop(name: string, kind: "sandbox" | "live" = "sandbox"): Promise<{ shopId: string; apiKey: string }> {
    const created = await this.submit("/shops", "/shops", { name, kind });
    if (created.status !== 303) throw new Error(`shop not created: ${created.status} ${text(created.html).slice(0, 300)}`);
    const shopId = /\/shops\/([0-9a-f-]{36})/.exec(created.location!)![1]!;
    const card = await this.follow(created);
    return { shopId, apiKey: apiKeyIn(card.html)! };
  }

  /** A download: the response's bytes and headers, not a page. */
  async download(path: string): Promise<{ status: number; bytes: Uint8Array; headers: Headers }> {
    const headers = new Headers({ "X-Forwarded-For": this.address, Cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") });
    const res = await this.send(new URL(path, this.base), { headers, redirect: "manual" });
    return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()), headers: res.headers };
  }

  private async request(path: string, init: RequestInit): Promise<Answer> {
    const headers = new Headers(init.headers);
    headers.set("X-Forwarded-For", this.address);
    if (this.cookies.size > 0) headers.set("Cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await this.send(new URL(path, this.base), { ...init, headers, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const [name, value] = [pair!.slice(0, pair!.indexOf("=")), pair!.slice(pair!.indexOf("=") + 1)];
      const expired = attributes.some((a) => /^\s*max-age=0$/i.test(a) || /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const html = await res.text();
    const token = CSRF.exec(html)?.[1];
    if (token) this.csrf = token;
    return { status: res.status, html, headers: res.headers, location: res.headers.get("location") };
  }
}

export const apiKeyIn = (html: string) => API_KEY.exec(html)?.[0];

/** The page's visible text (tags dropped, entities of the escaper decoded), for assertions on what a person reads. */
export function text(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/[ \t\r\n]+/g, " ")
    .trim();
}

/** A unique address per test run, so tests never share an account. */
export const uniqueEmail = (label: string) => `${label}-${Bun.randomUUIDv7().slice(-12)}@example.com`;
