import { pem, type MtlsFiles } from "./certificates.ts";

/**
 * A fake of Sber's API for ruble payment orders, written from the bank's public documentation at
 * developers.sber.ru («Авторизация пользователей», «Получение/обновление токенов доступа»,
 * «Создание рублевого платежного поручения», «Получение статуса рублевого платежного поручения»,
 * the digest format of a ruble payment order), never from the rail that talks to it. A small Bun
 * server, so a real balance process reaches it over HTTPS.
 *
 * What it does as the bank does: only clients with a certificate of its CA get through the TLS
 * handshake (mutual TLS); the token endpoint takes the client's id and secret and a refresh token,
 * answers a new access token (60 minutes) and a new refresh token, and keeps the one used as a
 * reserve for two hours; the API's calls need a live access token (401 otherwise); a payment
 * order without digestSignatures is made a draft (CREATED) that a signing person signs in
 * SberBusiness; the request's fields are checked as the model's formats say (VALIDATION_FAULT
 * naming the fields), the payer must be the company's own account (WORKFLOW_FAULT), an unreadable
 * body is DESERIALIZATION_FAULT; the state answers bankStatus and bankComment, 404 for an id it has
 * no order of. The documentation does not say what a second order of the same externalId gets:
 * the fake refuses it (WORKFLOW_FAULT) and keeps the first.
 *
 * What tests make it do: sign, execute or refuse a draft with any final status, forget access
 * tokens, answer the next calls of a path with a 5xx or make them wait past the client's timeout.
 */

export type SberAccount = { account: string; bik: string; corrAccount: string; inn: string };

export type FakeSberOptions = {
  tls: MtlsFiles;
  clientId: string;
  clientSecret: string;
  /** The refresh token a signing person's sign-in gave. */
  refreshToken: string;
  /** The company's own accounts: a payment order's payer must be one of them. */
  accounts: SberAccount[];
  accessTtlSeconds?: number;
};

export type SberDocument = { payment: Record<string, unknown>; bankStatus: string; bankComment: string | null; createdAt: number };
type Fault = { path: string; kind: "5xx" | "slow"; ms?: number; times: number };

const HOUR = 3_600_000;

const digits = (n: number | readonly number[]) => (v: unknown) => typeof v === "string" && /^\d+$/.test(v) && (typeof n === "number" ? v.length === n : n.includes(v.length));
const text = (max: number) => (v: unknown) => typeof v === "string" && v.trim().length > 0 && v.length <= max;

/** The Payment model's fields a ruble payment order needs, with the formats the model gives them. */
const REQUIRED: Record<string, (v: unknown) => boolean> = {
  externalId: (v) => typeof v === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v),
  date: (v) => typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v),
  amount: (v) => typeof v === "number" && v > 0 && Math.round(v * 100) === Number((v * 100).toFixed(6)),
  operationCode: (v) => v === "01",
  purpose: text(210),
  payerName: text(160),
  payerInn: digits([10, 12]),
  payerAccount: digits(20),
  payerBankBic: digits(9),
  payerBankCorrAccount: digits(20),
  payeeName: text(160),
  payeeInn: digits([10, 12]),
  payeeAccount: digits(20),
  payeeBankBic: digits(9),
  payeeBankCorrAccount: digits(20),
};
const OPTIONAL: Record<string, (v: unknown) => boolean> = {
  number: digits([1, 2, 3, 4, 5, 6]),
  priority: (v) => typeof v === "string" && /^[1-5]$/.test(v),
  payerKpp: (v) => v === "0" || digits(9)(v),
  payeeKpp: (v) => v === "0" || digits(9)(v),
  deliveryKind: (v) => typeof v === "string",
};

export class FakeSber {
  readonly documents = new Map<string, SberDocument>();
  /** Every call: method, path and the status answered. */
  readonly calls: { method: string; path: string; status: number }[] = [];
  private refresh: string;
  /** A refresh token used once stays good for two hours, as the bank's reserve. */
  private readonly reserve = new Map<string, number>();
  private readonly access = new Map<string, number>();
  private readonly faults: Fault[] = [];
  private readonly server: ReturnType<typeof Bun.serve>;

  constructor(private readonly opts: FakeSberOptions) {
    this.refresh = opts.refreshToken;
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { key: pem(opts.tls.serverKey), cert: pem(opts.tls.serverCert), ca: pem(opts.tls.ca), requestCert: true, rejectUnauthorized: true },
      fetch: async (req) => {
        const path = new URL(req.url).pathname;
        const res = await this.answer(req, path);
        this.calls.push({ method: req.method, path, status: res.status });
        return res;
      },
    });
  }

  get url(): string {
    return `https://127.0.0.1:${this.server.port}`;
  }

  /** The refresh token the bank would take now (the newest it gave). */
  get currentRefreshToken(): string {
    return this.refresh;
  }

  stop(): Promise<void> {
    return this.server.stop(true);
  }

  /** The signing person signed the draft in SberBusiness: the bank takes it. */
  sign(externalId: string): void {
    this.set(externalId, "ACCEPTED", null);
  }

  /** The bank executed the order: the money left the payer's account. */
  execute(externalId: string): void {
    this.set(externalId, "IMPLEMENTED", null);
  }

  /** A final refusal (REFUSEDBYBANK, REQUISITEERROR, DELETED…) with the bank's comment. */
  refuse(externalId: string, bankStatus: string, bankComment: string | null): void {
    this.set(externalId, bankStatus, bankComment);
  }

  /** Every access token given so far stops working (the bank revoked them, or they ran out). */
  forgetAccessTokens(): void {
    this.access.clear();
  }

  /** The next `times` calls to `path` answer 500, or wait `ms` before answering. */
  failNext(path: string, kind: Fault["kind"], times = 1, ms = 0): void {
    this.faults.push({ path, kind, times, ms });
  }

  private set(externalId: string, bankStatus: string, bankComment: string | null): void {
    const doc = this.documents.get(externalId);
    if (!doc) throw new Error(`the fake has no payment order ${externalId}`);
    doc.bankStatus = bankStatus;
    doc.bankComment = bankComment;
  }

  private async answer(req: Request, path: string): Promise<Response> {
    const fault = this.faults.find((f) => f.path === path && f.times > 0);
    if (fault) {
      fault.times--;
      if (fault.kind === "5xx") return Response.json({ cause: "INTERNAL_ERROR", message: "Внутренняя ошибка" }, { status: 500 });
      await Bun.sleep(fault.ms ?? 0);
    }
    if (path === "/ic/sso/api/v2/oauth/token" && req.method === "POST") return this.token(req);
    const bearer = /^Bearer (.+)$/.exec(req.headers.get("authorization") ?? "")?.[1];
    const expires = bearer ? this.access.get(bearer) : undefined;
    if (expires === undefined || expires < Date.now()) return Response.json({ cause: "UNAUTHORIZED", message: "Токен доступа недействителен" }, { status: 401 });
    if (path === "/fintech/api/v1/payments" && req.method === "POST") return this.create(req);
    const state = /^\/fintech\/api\/v1\/payments\/([^/]+)\/state$/.exec(path);
    if (state && req.method === "GET") {
      const doc = this.documents.get(decodeURIComponent(state[1]!));
      if (!doc) return Response.json({ cause: "NOT_FOUND", message: "Документ не найден" }, { status: 404 });
      return Response.json({ bankStatus: doc.bankStatus, ...(doc.bankComment ? { bankComment: doc.bankComment } : {}) });
    }
    return Response.json({ cause: "NOT_FOUND", message: "Ресурс не найден" }, { status: 404 });
  }

  private async token(req: Request): Promise<Response> {
    if (!(req.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) return Response.json({ error: "invalid_request" }, { status: 400 });
    const form = new URLSearchParams(await req.text());
    if (form.get("client_id") !== this.opts.clientId || form.get("client_secret") !== this.opts.clientSecret) return Response.json({ error: "invalid_client" }, { status: 401 });
    if (form.get("grant_type") !== "refresh_token") return Response.json({ error: "unsupported_grant_type" }, { status: 400 });
    const given = form.get("refresh_token") ?? "";
    const now = Date.now();
    if (given !== this.refresh && !((this.reserve.get(given) ?? 0) > now)) return Response.json({ error: "invalid_grant", error_description: "Unknown refresh token" }, { status: 400 });
    if (given === this.refresh) this.reserve.set(given, now + 2 * HOUR);
    this.refresh = crypto.randomUUID();
    const accessToken = crypto.randomUUID().replace(/-/g, "");
    const ttl = this.opts.accessTtlSeconds ?? 3600;
    this.access.set(accessToken, now + ttl * 1000);
    return Response.json({ access_token: accessToken, token_type: "Bearer", expires_in: ttl, refresh_token: this.refresh, scope: "openid PAY_DOC_RU", id_token: "fake" });
  }

  private async create(req: Request): Promise<Response> {
    let body: Record<string, unknown>;
    try {
      body = (await req.json()) as Record<string, unknown>;
      if (typeof body !== "object" || body === null || Array.isArray(body)) throw new Error("not an object");
    } catch {
      return Response.json({ cause: "DESERIALIZATION_FAULT", message: "Неверный формат запроса", fields: [] }, { status: 400 });
    }
    const wrong = [
      ...Object.entries(REQUIRED).filter(([k, ok]) => !ok(body[k])),
      ...Object.entries(OPTIONAL).filter(([k, ok]) => body[k] !== undefined && !ok(body[k])),
    ].map(([k]) => k);
    if (wrong.length > 0) return Response.json({ cause: "VALIDATION_FAULT", message: "Ошибка валидации", fieldNames: wrong, checks: wrong.map((k) => `${k}: неверный формат`) }, { status: 400 });
    const own = this.opts.accounts.find((a) => a.account === body.payerAccount);
    if (!own || own.bik !== body.payerBankBic || own.corrAccount !== body.payerBankCorrAccount || own.inn !== body.payerInn) {
      return Response.json({ cause: "WORKFLOW_FAULT", message: "Счёт плательщика не принадлежит организации" }, { status: 400 });
    }
    const id = body.externalId as string;
    if (this.documents.has(id)) return Response.json({ cause: "WORKFLOW_FAULT", message: "Документ с таким externalId уже существует" }, { status: 400 });
    const doc: SberDocument = { payment: body, bankStatus: "CREATED", bankComment: null, createdAt: Date.now() };
    this.documents.set(id, doc);
    return Response.json({ ...body, bankStatus: doc.bankStatus }, { status: 201 });
  }
}
