/**
 * A fake АТОЛ Онлайн for tests: a real HTTP server on 127.0.0.1 that the receipts service's
 * processes reach like the real one. Written from АТОЛ's public description of its API v5 (FFD
 * 1.2): "API ККТ АТОЛ Онлайн v5" (getToken, <group_code>/<operation>, <group_code>/report/<uuid>,
 * service.callback_url), its table of service errors (codes, HTTP statuses, texts, the document
 * status each leaves), its error types (system, unknown, driver, timeout, agent) and its receipt
 * fields for FFD 1.2 (company, client, items with measure, payment_method, payment_object by
 * number and vat, payments, total); the public client libraries on GitHub that mirror the shapes
 * were read to confirm them. Nothing here comes from our connector.
 *
 * What it checks as АТОЛ does: the Token header on every call (missing or unknown: 10, expired:
 * 11, another group's: 20), Content-Type (41), the operation (31), every required field of the
 * receipt and its arithmetic (32, naming the fields), one document per external_id in a group
 * (33, naming the document there). Documents are processed after `processingMs`, then reported
 * done (with fiscal data numbered per group) or fail, and their result posted to callback_url.
 */

type ErrorType = "system" | "unknown" | "driver" | "timeout" | "agent";
export type FakeAtolError = { code: number; text: string; type: ErrorType };
export type FakeAtolAccount = { login: string; pass: string; groupCode: string; inn: string };

export type FakeAtolDocument = {
  uuid: string;
  groupCode: string;
  operation: string;
  externalId: string;
  /** The request body as received. */
  body: Record<string, any>;
  status: "wait" | "done" | "fail";
  error: FakeAtolError | null;
  payload: Record<string, unknown> | null;
  /** Report requests for it, and the callbacks posted for it with what the receiver answered. */
  reports: number;
  callbacks: { status: number; body: unknown }[];
  /** Held documents stay `wait` until the test finishes them. */
  held: boolean;
};

/** A reply a test makes the next requests get instead of the normal one. */
export type FakeAtolReply = { httpStatus: number; error: FakeAtolError; status?: "fail" | "wait" | null };

/** The service errors the fake answers with, as АТОЛ's table gives them. */
const E = {
  missingToken: { http: 401, code: 10, text: "Не распознан токен запроса", status: null },
  expiredToken: { http: 401, code: 11, text: "Переданный токен не активен", status: null },
  wrongLogin: { http: 401, code: 12, text: "Неверный логин или пароль", status: null },
  tokenRequestInvalid: { http: 400, code: 13, text: "Ошибка валидации входящего запроса. Ошибочные поля: {0}.", status: null },
  groupMismatch: { http: 401, code: 20, text: "Код группы, указанный в запросе, не соответствует токену.", status: null },
  unknownUuid: { http: 400, code: 30, text: 'Передан некорректный UUID : "{0}". Необходимо повторить запрос с корректными данными', status: "fail" },
  operationNotSupported: { http: 400, code: 31, text: 'Операция "{0}" не поддерживается.', status: null },
  receiptInvalid: { http: 400, code: 32, text: "Ошибка валидации входного чека. Ошибочные поля : {0}", status: "fail" },
  externalIdExists: { http: 400, code: 33, text: "В системе существует чек с external_id : {0} и group_code: {1}", status: "wait" },
  notProcessedYet: { http: 200, code: 34, text: "Состояние чека не найдено. Попробуйте позднее.", status: "wait" },
  badRequest: { http: 400, code: 40, text: "Некорректный запрос.", status: null },
  contentType: { http: 415, code: 41, text: "Некорректный Content-Type: {0}.", status: null },
} as const;
type ServiceError = (typeof E)[keyof typeof E];

const OPERATIONS = ["sell", "sell_refund", "buy", "buy_refund"];
const SNO = ["osn", "usn_income", "usn_income_outcome", "envd", "esn", "patent"];
const PAYMENT_METHODS = ["full_prepayment", "prepayment", "advance", "full_payment", "partial_payment", "credit", "credit_payment"];
/** payment_object in v5: the numbers of tag 1212 (1–27, 30–33). */
const PAYMENT_OBJECTS = new Set([...Array.from({ length: 27 }, (_, i) => i + 1), 30, 31, 32, 33]);
/** measure in v5: the numbers of tag 2108. */
const MEASURES = new Set([0, 10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42, 50, 51, 70, 71, 72, 73, 80, 81, 82, 83, 255]);
const VAT_TYPES = ["none", "vat0", "vat5", "vat7", "vat10", "vat20", "vat22", "vat105", "vat107", "vat110", "vat120", "vat122"];
/** The largest price or sum of a line АТОЛ takes: 42 949 672.95. */
const MAX_MONEY = 42_949_672.95;
const TIME = /^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}:\d{2}$/;

const fill = (text: string, ...args: string[]) => args.reduce((t, a, i) => t.replace(`{${i}}`, a), text);
const decimals = (n: number, places: number) => Math.abs(n * 10 ** places - Math.round(n * 10 ** places)) < 1e-6;
const isMoney = (v: unknown) => typeof v === "number" && v >= 0 && v <= MAX_MONEY && decimals(v, 2);
const isString = (v: unknown, max: number, min = 1) => typeof v === "string" && v.length >= min && v.length <= max;

/** "dd.mm.yyyy HH:MM:SS" in Moscow time, as АТОЛ writes its times. */
function moscowTime(ms: number): string {
  const t = new Date(ms + 3 * 3_600_000);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${p(t.getUTCDate())}.${p(t.getUTCMonth() + 1)}.${t.getUTCFullYear()} ${p(t.getUTCHours())}:${p(t.getUTCMinutes())}:${p(t.getUTCSeconds())}`;
}

/** The fields of a sell / sell_refund body that break АТОЛ's rules, by their path. */
export function invalidReceiptFields(body: any): string[] {
  const bad: string[] = [];
  const check = (ok: boolean, field: string) => {
    if (!ok) bad.push(field);
  };
  check(typeof body?.timestamp === "string" && TIME.test(body.timestamp), "timestamp");
  check(isString(body?.external_id, 128), "external_id");
  if (body?.service !== undefined) {
    const url = body.service?.callback_url;
    check(url === undefined || (isString(url, 256) && /^https?:\/\//.test(url)), "service.callback_url");
  }
  const r = body?.receipt;
  if (typeof r !== "object" || r === null) return [...bad, "receipt"];
  const client = r.client ?? {};
  check(client.email !== undefined || client.phone !== undefined, "receipt.client");
  if (client.email !== undefined) check(isString(client.email, 64) && client.email.includes("@"), "receipt.client.email");
  if (client.phone !== undefined) check(isString(client.phone, 19) && /^\+?\d+$/.test(client.phone), "receipt.client.phone");
  const company = r.company ?? {};
  check(isString(company.email, 64) && company.email.includes("@"), "receipt.company.email");
  check(typeof company.inn === "string" && /^(\d{10}|\d{12})$/.test(company.inn), "receipt.company.inn");
  check(isString(company.payment_address, 256), "receipt.company.payment_address");
  if (company.sno !== undefined) check(SNO.includes(company.sno), "receipt.company.sno");
  const items = Array.isArray(r.items) ? r.items : [];
  check(items.length >= 1 && items.length <= 100, "receipt.items");
  let itemsTotal = 0;
  items.forEach((item: any, i: number) => {
    const at = `receipt.items[${i}]`;
    check(isString(item?.name, 128), `${at}.name`);
    check(isMoney(item?.price), `${at}.price`);
    check(typeof item?.quantity === "number" && item.quantity > 0 && item.quantity <= 99_999.999 && decimals(item.quantity, 3), `${at}.quantity`);
    check(MEASURES.has(item?.measure), `${at}.measure`);
    check(isMoney(item?.sum), `${at}.sum`);
    // Tag 1043 = tag 1079 × tag 1023, to the kopeck.
    if (isMoney(item?.price) && isMoney(item?.sum) && typeof item?.quantity === "number") check(Math.abs(item.price * item.quantity - item.sum) < 0.01, `${at}.sum`);
    check(PAYMENT_METHODS.includes(item?.payment_method), `${at}.payment_method`);
    check(PAYMENT_OBJECTS.has(item?.payment_object), `${at}.payment_object`);
    check(VAT_TYPES.includes(item?.vat?.type), `${at}.vat.type`);
    if (typeof item?.sum === "number") itemsTotal += Math.round(item.sum * 100);
  });
  const payments = Array.isArray(r.payments) ? r.payments : [];
  check(payments.length >= 1 && payments.length <= 10, "receipt.payments");
  let paid = 0;
  payments.forEach((p: any, i: number) => {
    check(Number.isInteger(p?.type) && p.type >= 0 && p.type <= 9, `receipt.payments[${i}].type`);
    check(isMoney(p?.sum), `receipt.payments[${i}].sum`);
    if (typeof p?.sum === "number") paid += Math.round(p.sum * 100);
  });
  check(isMoney(r.total) && Math.round(r.total * 100) === itemsTotal && paid === itemsTotal, "receipt.total");
  return [...new Set(bad)];
}

export class FakeAtol {
  readonly documents: FakeAtolDocument[] = [];
  /** getToken requests, and calls refused for their token (codes 10, 11). */
  getTokenCalls = 0;
  tokenRefusals: { code: number; path: string }[] = [];
  /** Every call's path and whether it carried a Token header. */
  calls: { method: string; path: string; tokenHeader: boolean }[] = [];
  /** on: one callback per document; twice: each posted twice (a duplicate); off: none (lost). */
  callbacks: "on" | "twice" | "off" = "on";
  /** New documents stay `wait` until finish(). */
  hold = false;
  private readonly tokens = new Map<string, { account: FakeAtolAccount; expiresAt: number }>();
  private readonly nextReplies: { to: "register" | "report"; reply: FakeAtolReply }[] = [];
  private readonly nextFailures: FakeAtolError[] = [];
  private readonly numbers = new Map<string, number>();
  private readonly timers = new Set<Timer>();
  private server: ReturnType<typeof Bun.serve>;

  /** `tokenTtlMs`: АТОЛ's 24 hours by default. */
  constructor(
    private readonly accounts: FakeAtolAccount[],
    private readonly opts: { tokenTtlMs?: number; processingMs?: number } = {},
  ) {
    this.server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => this.handle(req) });
  }

  /** The API's base, as ATOL_BASE_URL. */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.server.port}/possystem/v5`;
  }

  /** Every token issued so far stops working (as after 24 hours). */
  expireTokens(): void {
    for (const t of this.tokens.values()) t.expiresAt = 0;
  }

  /** The next registration (sell…) or report requests get this reply instead. */
  replyNext(to: "register" | "report", reply: FakeAtolReply, times = 1): void {
    for (let i = 0; i < times; i++) this.nextReplies.push({ to, reply });
  }

  /** The next documents processed end in fail with these errors, one each. */
  failNext(...errors: FakeAtolError[]): void {
    this.nextFailures.push(...errors);
  }

  documentsOf(receiptId: string): FakeAtolDocument[] {
    return this.documents.filter((d) => d.externalId === receiptId || d.externalId.startsWith(`${receiptId}.`));
  }

  /** Completes a held document as fiscalised and posts its callbacks; what the receiver answered. */
  async finish(uuid: string): Promise<{ status: number; body: unknown }[]> {
    const doc = this.documents.find((d) => d.uuid === uuid);
    if (!doc || doc.status !== "wait") throw new Error(`no document ${uuid} waiting`);
    doc.held = false;
    this.complete(doc);
    return this.postCallbacks(doc);
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.server.stop(true);
  }

  private async handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const path = url.pathname.replace(/^\/possystem\/v5\//, "");
    const token = req.headers.get("Token");
    this.calls.push({ method: req.method, path, tokenHeader: token !== null });
    if (path === url.pathname) return this.error(E.badRequest);
    if (path === "getToken") return this.getToken(req);
    const [group, operation, uuid] = path.split("/");
    if (!group || !operation) return this.error(E.badRequest);
    // The token: the header (or the token parameter АТОЛ also takes), known, alive, of this group.
    const held = this.tokens.get(token ?? url.searchParams.get("token") ?? "");
    if (!held) return this.tokenRefused(E.missingToken, path);
    if (held.expiresAt <= Date.now()) return this.tokenRefused(E.expiredToken, path);
    if (held.account.groupCode !== group) return this.error(E.groupMismatch);
    if (operation === "report" && req.method === "GET" && uuid) return this.report(group, uuid);
    if (req.method !== "POST" || uuid !== undefined) return this.error(E.badRequest);
    if (!OPERATIONS.includes(operation)) return this.error(E.operationNotSupported, operation);
    const type = req.headers.get("Content-Type") ?? "";
    if (!type.startsWith("application/json")) return this.error(E.contentType, type);
    let body: any;
    try {
      body = await req.json();
    } catch {
      return this.error(E.badRequest);
    }
    return this.register(held.account, operation, body);
  }

  private async getToken(req: Request): Promise<Response> {
    this.getTokenCalls++;
    let body: any;
    try {
      body = await req.json();
    } catch {
      return this.error(E.badRequest);
    }
    const missing = ["login", "pass"].filter((k) => !isString(body?.[k], 100));
    if (missing.length > 0) return this.error(E.tokenRequestInvalid, missing.join(", "));
    const account = this.accounts.find((a) => a.login === body.login && a.pass === body.pass);
    if (!account) return this.error(E.wrongLogin);
    const token = crypto.randomUUID().replace(/-/g, "");
    this.tokens.set(token, { account, expiresAt: Date.now() + (this.opts.tokenTtlMs ?? 24 * 3_600_000) });
    return Response.json({ error: null, token, timestamp: moscowTime(Date.now()) });
  }

  private register(account: FakeAtolAccount, operation: string, body: any): Response {
    const scripted = this.takeReply("register");
    if (scripted) return this.scriptedReply(scripted);
    const bad = invalidReceiptFields(body);
    if (bad.length > 0) return this.error(E.receiptInvalid, bad.join(", "));
    const existing = this.documents.find((d) => d.groupCode === account.groupCode && d.externalId === body.external_id);
    if (existing) return this.error(E.externalIdExists, body.external_id, account.groupCode, existing.uuid);
    const doc: FakeAtolDocument = {
      uuid: crypto.randomUUID(),
      groupCode: account.groupCode,
      operation,
      externalId: body.external_id,
      body,
      status: "wait",
      error: null,
      payload: null,
      reports: 0,
      callbacks: [],
      held: this.hold,
    };
    this.documents.push(doc);
    if (!doc.held) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.complete(doc);
        void this.postCallbacks(doc);
      }, this.opts.processingMs ?? 50);
      this.timers.add(timer);
    }
    return Response.json({ uuid: doc.uuid, status: "wait", error: null, timestamp: moscowTime(Date.now()) });
  }

  /** Processed: a scripted failure, an INN the register's fiscal drive does not have (the register refuses it), or fiscalised. */
  private complete(doc: FakeAtolDocument): void {
    const account = this.accounts.find((a) => a.groupCode === doc.groupCode)!;
    const failure = this.nextFailures.shift();
    if (failure) {
      Object.assign(doc, { status: "fail", error: failure });
      return;
    }
    if (doc.body.receipt.company.inn !== account.inn) {
      Object.assign(doc, { status: "fail", error: { code: 1, text: "ИНН в чеке не совпадает с ИНН в ФН", type: "driver" } });
      return;
    }
    const n = (this.numbers.get(doc.groupCode) ?? 0) + 1;
    this.numbers.set(doc.groupCode, n);
    const payload = {
      total: doc.body.receipt.total,
      fns_site: "www.nalog.gov.ru",
      fn_number: `99990789${account.inn.slice(0, 8)}`,
      shift_number: 1,
      receipt_datetime: moscowTime(Date.now()),
      fiscal_receipt_number: n,
      fiscal_document_number: n,
      ecr_registration_number: "0000000001012345",
      fiscal_document_attribute: crypto.getRandomValues(new Uint32Array(1))[0]!,
      ofd_inn: "7704211201",
    };
    Object.assign(doc, { status: "done", payload });
  }

  private reportOf(doc: FakeAtolDocument) {
    const waiting = doc.status === "wait";
    return {
      uuid: doc.uuid,
      error: waiting ? this.errorObject(E.notProcessedYet) : doc.error && { error_id: crypto.randomUUID(), ...doc.error },
      status: doc.status,
      payload: doc.payload,
      timestamp: moscowTime(Date.now()),
      group_code: doc.groupCode,
      daemon_code: "fake-agent-1",
      device_code: "KSR13.11-3-1",
      external_id: doc.externalId,
      callback_url: doc.body.service?.callback_url ?? "",
    };
  }

  private report(group: string, uuid: string): Response {
    const scripted = this.takeReply("report");
    if (scripted) return this.scriptedReply(scripted);
    const doc = this.documents.find((d) => d.uuid === uuid && d.groupCode === group);
    if (!doc) return this.error(E.unknownUuid, uuid);
    doc.reports++;
    return Response.json(this.reportOf(doc));
  }

  private async postCallbacks(doc: FakeAtolDocument): Promise<{ status: number; body: unknown }[]> {
    const url = doc.body.service?.callback_url;
    if (!url || this.callbacks === "off") return [];
    const times = this.callbacks === "twice" ? 2 : 1;
    const answers: { status: number; body: unknown }[] = [];
    for (let i = 0; i < times; i++) {
      try {
        const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json; charset=utf-8" }, body: JSON.stringify(this.reportOf(doc)) });
        const text = await res.text();
        answers.push({ status: res.status, body: text ? JSON.parse(text) : null });
      } catch (e) {
        answers.push({ status: 0, body: String(e) });
      }
    }
    doc.callbacks.push(...answers);
    return answers;
  }

  private takeReply(to: "register" | "report"): FakeAtolReply | undefined {
    const i = this.nextReplies.findIndex((r) => r.to === to);
    return i < 0 ? undefined : this.nextReplies.splice(i, 1)[0]!.reply;
  }

  private scriptedReply(r: FakeAtolReply): Response {
    return Response.json({ uuid: null, error: { error_id: crypto.randomUUID(), ...r.error }, status: r.status ?? null, timestamp: moscowTime(Date.now()) }, { status: r.httpStatus });
  }

  private errorObject(e: ServiceError, ...args: string[]) {
    return { error_id: crypto.randomUUID(), code: e.code, text: fill(e.text, ...args), type: "system" as const };
  }

  /** An error reply; code 33 names the document that has the external_id (its uuid, the third argument). */
  private error(e: ServiceError, ...args: string[]): Response {
    const uuid = e.code === E.externalIdExists.code ? args[2]! : null;
    return Response.json({ uuid, error: this.errorObject(e, ...args), status: e.status, timestamp: moscowTime(Date.now()) }, { status: e.http });
  }

  private tokenRefused(e: ServiceError, path: string): Response {
    this.tokenRefusals.push({ code: e.code, path });
    return this.error(e);
  }
}
