import { bankToken, bankTokenValid } from "./token.ts";
import { bindPage, cardForm, closedPage, qrApp, threeDsPage } from "./pages.ts";

/**
 * A fake of T-Bank's Internet Acquiring API v2, written from the bank's public OpenAPI description
 * (1.80) and its pages on statuses, notifications, errors and test cards, never from the
 * connector that talks to it. A small Bun server so real service processes reach it over HTTP.
 *
 * What it does as the bank does: every request's Token checked (204 for a wrong one, 205 for an
 * unknown terminal); the payment statuses of the bank's status model; the payment form at
 * PaymentURL (FORM_SHOWED when opened, the card decides, 3-D Secure when the card asks for it,
 * then SuccessURL or FailURL); SBP QRs and the payer's bank app; Confirm, Cancel as a void or a
 * (partial) refund, ExternalRequestId deduplicating card refunds and ignored for SBP (as the bank
 * documents); Charge by RebillId, ChargeQr by AccountToken; card lists and account bindings;
 * notifications to NotificationURL signed with Token, sent again until the answer is exactly "OK".
 *
 * What tests make it do: delay or drop an answer, answer 5xx, refuse connections (stop), decline
 * the next payment with any error code, ask for 3-D Secure, duplicate notifications, hold them and
 * release them out of order, or never send them.
 */

export type FakeTBankOptions = {
  /** TerminalKey → Password. */
  terminals: Record<string, string>;
  /**
   * The terminals' NotificationURL setting: where notifications of account bindings go (the bank
   * sends those only there), and payments' notifications when Init names none.
   */
  notificationUrl?: string;
  port?: number;
  /** The base the buyer's browser opens (PaymentURL, QR links); default the server's own loopback URL. */
  publicUrl?: string;
  /** Pauses between a notification's attempts until it is answered OK (the bank's own are longer). */
  notificationRetryMs?: number[];
  /** How long an SBP refund stays ASYNC_REFUNDING before it is done. */
  sbpRefundMs?: number;
};

type Status = string;

export type BankPayment = {
  paymentId: string;
  terminalKey: string;
  orderId: string;
  /** The amount asked for (Init), then what is held, confirmed or left after refunds. */
  amount: number;
  initialAmount: number;
  payType: "O" | "T";
  status: Status;
  description: string | null;
  recurrent: boolean;
  customerKey: string | null;
  notificationUrl: string | null;
  successUrl: string | null;
  failUrl: string | null;
  redirectDueDate: number | null;
  formToken: string;
  sbp: boolean;
  requestKey: string | null;
  errorCode: string;
  card: { cardId: string; rebillId: string | null; pan: string; expDate: string } | null;
  refunds: { externalRequestId: string | null; amount: number; status: "ASYNC" | "DONE" }[];
  operationInitiatorType: string | null;
};

type Binding = { requestKey: string; terminalKey: string; status: "NEW" | "PROCESSING" | "ACTIVE" | "INACTIVE"; accountToken: string | null; notificationUrl: string | null };
type SavedCard = { cardId: string; rebillId: string; pan: string; expDate: string; status: "A" | "D"; decline: string | null };
type Fault = { method: string; kind: "delay" | "drop" | "5xx"; ms?: number; times: number };

export type Delivery = { url: string; body: Record<string, unknown>; status: number | null; answer: string };

/** Test cards of the fake, after the bank's test page: what the form does with each. */
export const TEST_CARDS = {
  success: "4300000000000777",
  success3ds: "2201382000000013",
  declined: "2201382000000021",
  insufficientFunds: "2201382000000039",
  expired: "2201382000000047",
  failed3ds: "2201382000000054",
} as const;
const CARD_DECLINES: Record<string, string> = {
  [TEST_CARDS.declined]: "1005",
  [TEST_CARDS.insufficientFunds]: "1051",
  [TEST_CARDS.expired]: "1054",
};
const CARD_3DS = new Set<string>([TEST_CARDS.success3ds, TEST_CARDS.failed3ds]);
/** The 3-D Secure code the fake's ACS page accepts. */
export const THREE_DS_CODE = "1234";

const ERRORS: Record<string, string> = {
  "0": "",
  "2": "Отсутствуют обязательные параметры",
  "7": "Неверный статус покупателя",
  "8": "Неверный статус транзакции",
  "204": "Неверный токен. Проверьте пару TerminalKey/SecretKey",
  "205": "Неверный токен. Проверьте пару TerminalKey/SecretKey",
  "251": "Неверная сумма",
  "255": "Платеж не найден",
  "335": "OrderId не найден",
  "1005": "Платеж отклонен банком, выпустившим карту",
  "1051": "Недостаточно средств на карте",
  "1054": "Истек срок действия карты",
  "3015": "Неверный статус AccountToken",
  "3016": "Невозможно создать QR",
};

const mask = (pan: string) => `${pan.slice(0, 6)}******${pan.slice(-4)}`;
const luhn = (pan: string) =>
  /^\d{13,19}$/.test(pan) &&
  [...pan].reverse().reduce((sum, ch, i) => {
    const d = Number(ch) * (i % 2 ? 2 : 1);
    return sum + (d > 9 ? d - 9 : d);
  }, 0) %
    10 ===
    0;

export class FakeTBank {
  readonly payments = new Map<string, BankPayment>();
  readonly requests: { method: string; body: Record<string, unknown> }[] = [];
  readonly deliveries: Delivery[] = [];
  private readonly customers = new Map<string, { terminalKey: string; cards: SavedCard[] }>();
  private readonly bindings = new Map<string, Binding>();
  private faults: Fault[] = [];
  private nextDecline: { code: string; times: number } | null = null;
  private nextCharge: { kind: "decline" | "3ds"; code: string } | null = null;
  private notify = { duplicate: false, hold: false, dropOrders: new Set<string>() };
  private held: { url: string; body: Record<string, unknown>; password: string }[] = [];
  private server: ReturnType<typeof Bun.serve>;
  /** The port it listens on, kept across stop() and start(). */
  private readonly port: number;
  private seq = 100_000;
  private stopped = false;
  private readonly pending = new Set<Promise<unknown>>();
  /** The terminals' NotificationURL setting (FakeTBankOptions.notificationUrl), changeable as in the merchant's cabinet. */
  notificationUrl: string | null;

  constructor(private readonly opts: FakeTBankOptions) {
    this.notificationUrl = opts.notificationUrl ?? null;
    this.server = this.listen(opts.port ?? 0);
    this.port = this.server.port!;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  /** The API's base, as a connector's TBANK_API_URL. */
  get apiUrl(): string {
    return `${this.url}/v2`;
  }
  private get publicUrl(): string {
    return this.opts.publicUrl ?? this.url;
  }

  // ── what tests make the bank do ──────────────────────────────────────────

  /** The next `times` calls of `method` wait `ms` before being handled (a slow bank). */
  delay(method: string, ms: number, times = 1): void {
    this.faults.push({ method, kind: "delay", ms, times });
  }
  /** The next `times` calls of `method` are handled, but their answer never leaves (a lost answer). */
  dropAnswer(method: string, times = 1): void {
    this.faults.push({ method, kind: "drop", times });
  }
  /** The next `times` calls of `method` get 503 from the bank's front, unhandled. */
  fail5xx(method: string, times = 1): void {
    this.faults.push({ method, kind: "5xx", times });
  }
  /** The next payment made on the form or the bank app is declined with this ErrorCode, whatever the card. */
  declineNext(code: string, times = 1): void {
    this.nextDecline = { code, times };
  }
  /** The next Charge or ChargeQr: declined with `code`, or refused because the issuer asks for 3-D Secure (108). */
  nextChargeOutcome(outcome: { kind: "decline"; code: string } | { kind: "3ds" }): void {
    this.nextCharge = outcome.kind === "3ds" ? { kind: "3ds", code: "108" } : outcome;
  }
  /** Notifications go twice each. */
  duplicateNotifications(on = true): void {
    this.notify.duplicate = on;
  }
  /** Notifications wait until released, then go in reverse order (out of order). */
  holdNotifications(): void {
    this.notify.hold = true;
  }
  async releaseNotifications(order: "reverse" | "same" = "reverse"): Promise<void> {
    this.notify.hold = false;
    const held = order === "reverse" ? this.held.reverse() : this.held;
    this.held = [];
    for (const n of held) await this.deliver(n.url, n.body, n.password);
  }
  /** The payments of this OrderId never get a notification: one that never came. */
  dropNotificationsOf(orderId: string): void {
    this.notify.dropOrders.add(orderId);
  }
  /** The bank ends an SBP account binding on its side (the payer, the payer's bank), with its LINKACCOUNT notification. */
  deactivateBinding(accountToken: string): void {
    const b = [...this.bindings.values()].find((x) => x.accountToken === accountToken);
    if (!b) throw new Error(`no binding with account token ${accountToken}`);
    b.status = "INACTIVE";
    this.linkNotification(b);
  }
  /** A saved card the issuer has since declined: charges with it are refused with `code`. */
  cardDeclines(rebillId: string, code: string): void {
    const card = [...this.customers.values()].flatMap((c) => c.cards).find((c) => c.rebillId === rebillId);
    if (!card) throw new Error(`no card with RebillId ${rebillId}`);
    card.decline = code;
  }
  /** Refuse connections (the bank down) until start(). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.server.stop(true);
    await Promise.allSettled([...this.pending]);
  }
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.server = this.listen(this.port);
  }

  /** The calls of one method the bank received, oldest first. */
  calls(method: string): Record<string, unknown>[] {
    return this.requests.filter((r) => r.method === method).map((r) => r.body);
  }
  /** The bank's payments of an OrderId, oldest first. */
  paymentsOf(orderId: string): BankPayment[] {
    return [...this.payments.values()].filter((p) => p.orderId === orderId);
  }
  /** Notifications sent, each once, whatever their answer. */
  sent(orderId: string): Record<string, unknown>[] {
    return [...new Set(this.deliveries.filter((d) => d.body.OrderId === orderId).map((d) => d.body))];
  }
  /** Notifications answered OK. */
  delivered(orderId?: string): Record<string, unknown>[] {
    return this.deliveries.filter((d) => d.answer === "OK" && d.status === 200 && (orderId === undefined || d.body.OrderId === orderId)).map((d) => d.body);
  }

  // ── the server ───────────────────────────────────────────────────────────

  private listen(port: number) {
    return Bun.serve({ hostname: "127.0.0.1", port, idleTimeout: 30, fetch: (req) => this.route(req) });
  }

  private async route(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const [, first, second, third] = url.pathname.split("/");
    if (first === "v2" && req.method === "POST" && second) return this.api(second, req);
    if (first === "pay" && second) return third === "3ds" ? this.threeDs(req, second) : this.form(req, second);
    if (first === "qr" && second === "bind" && third) return this.bindApp(req, third);
    if (first === "qr" && second) return this.qrApp(req, second);
    return new Response("not found", { status: 404 });
  }

  private async api(method: string, req: Request): Promise<Response> {
    let body: Record<string, unknown>;
    try {
      body = (await req.json()) as Record<string, unknown>;
    } catch {
      return Response.json(this.error("2"));
    }
    this.requests.push({ method, body });
    const fault = this.takeFault(method);
    if (fault?.kind === "5xx") return new Response("Service Unavailable", { status: 503 });
    if (fault?.kind === "delay") await Bun.sleep(fault.ms!);
    const answer = this.handle(method, body);
    if (fault?.kind === "drop") {
      // Handled, never answered: the caller's timeout (or the idle connection's end) is all it learns.
      return new Promise<Response>((resolve) => setTimeout(() => resolve(new Response(null, { status: 504 })), 60_000));
    }
    return Response.json(answer);
  }

  private takeFault(method: string): Fault | undefined {
    const fault = this.faults.find((f) => f.method === method && f.times > 0);
    if (fault) fault.times--;
    this.faults = this.faults.filter((f) => f.times > 0);
    return fault;
  }

  private error(code: string, extra: Record<string, unknown> = {}) {
    return { Success: false, ErrorCode: code, Message: ERRORS[code] ?? "Ошибка", Details: "", ...extra };
  }

  /** Every method: the terminal and its Token first, as the bank checks them. */
  private handle(method: string, body: Record<string, unknown>): unknown {
    const terminalKey = String(body.TerminalKey ?? "");
    const password = this.opts.terminals[terminalKey];
    if (password === undefined) return this.error("205");
    if (!bankTokenValid(body, password)) return this.error("204");
    const ok = (fields: Record<string, unknown>) => ({ Success: true, ErrorCode: "0", TerminalKey: terminalKey, ...fields });
    const payment = () => {
      const p = this.payments.get(String(body.PaymentId ?? ""));
      return p && p.terminalKey === terminalKey ? p : undefined;
    };
    switch (method) {
      case "Init":
        return this.init(terminalKey, body, ok);
      case "GetState": {
        const p = payment();
        return p ? ok({ Status: p.status, PaymentId: p.paymentId, OrderId: p.orderId, Amount: p.amount }) : this.error("255");
      }
      case "CheckOrder": {
        const list = this.paymentsOf(String(body.OrderId ?? "")).filter((p) => p.terminalKey === terminalKey);
        if (list.length === 0) return this.error("335");
        return ok({
          OrderId: body.OrderId,
          Payments: list.map((p) => ({ PaymentId: p.paymentId, Amount: p.amount, Status: p.status, Success: p.errorCode === "0", ErrorCode: p.errorCode })),
        });
      }
      case "Confirm":
        return this.confirm(payment(), body, ok);
      case "Cancel":
        return this.cancel(payment(), body, ok);
      case "Charge":
        return this.charge(payment(), body, ok);
      case "ChargeQr":
        return this.chargeQr(payment(), body, ok);
      case "GetQr":
        return this.getQr(payment(), ok);
      case "SbpPayTest": {
        const p = payment();
        if (!p || !p.sbp || p.status !== "FORM_SHOWED") return this.error("8");
        if (body.IsDeadlineExpired === true) this.move(p, "DEADLINE_EXPIRED");
        else if (body.IsRejected === true) this.decline(p, "1005");
        else this.paySbp(p, false);
        return ok({});
      }
      case "GetQrState": {
        const p = payment();
        const last = p?.refunds.at(-1);
        if (!p) return this.error("255");
        return ok({ Status: p.status, OrderId: p.orderId, ...(last ? { Amount: last.amount } : {}) });
      }
      case "AddAccountQr": {
        const b: Binding = { requestKey: this.id(), terminalKey, status: "PROCESSING", accountToken: null, notificationUrl: this.notificationUrl };
        this.bindings.set(b.requestKey, b);
        return ok({ Data: `${this.publicUrl}/qr/bind/${b.requestKey}`, RequestKey: b.requestKey });
      }
      case "GetAddAccountQrState": {
        const b = this.bindings.get(String(body.RequestKey ?? ""));
        if (!b || b.terminalKey !== terminalKey) return this.error("502");
        return ok({
          RequestKey: b.requestKey,
          Status: b.status,
          ...(b.accountToken ? { AccountToken: b.accountToken, BankMemberId: "100000000004", BankMemberName: "Т-Банк" } : {}),
        });
      }
      case "AddCustomer":
        this.customers.set(String(body.CustomerKey), this.customers.get(String(body.CustomerKey)) ?? { terminalKey, cards: [] });
        return ok({ CustomerKey: body.CustomerKey });
      case "GetCustomer":
        return this.customers.has(String(body.CustomerKey)) ? ok({ CustomerKey: body.CustomerKey }) : this.error("7");
      case "GetCardList": {
        const c = this.customers.get(String(body.CustomerKey ?? ""));
        if (!c || c.terminalKey !== terminalKey) return this.error("7");
        // The bank's card list is a bare array.
        return c.cards.map((card) => ({ CardId: card.cardId, Pan: mask(card.pan), Status: card.status, RebillId: card.rebillId, CardType: 0, ExpDate: card.expDate }));
      }
      case "RemoveCard": {
        const card = this.customers.get(String(body.CustomerKey ?? ""))?.cards.find((x) => x.cardId === String(body.CardId) && x.status === "A");
        if (!card) return this.error("7");
        card.status = "D";
        return ok({ Status: "D", CustomerKey: body.CustomerKey, CardId: card.cardId, CardType: 0 });
      }
      default:
        return this.error("2");
    }
  }

  private id(): string {
    return String(++this.seq);
  }

  private init(terminalKey: string, body: Record<string, unknown>, ok: (f: Record<string, unknown>) => unknown) {
    const amount = body.Amount;
    const orderId = body.OrderId;
    if (typeof amount !== "number" || !Number.isInteger(amount) || amount <= 0) return this.error("251");
    if (typeof orderId !== "string" || orderId.length === 0 || orderId.length > 36) return this.error("2");
    const data = (body.DATA ?? {}) as Record<string, unknown>;
    const due = typeof body.RedirectDueDate === "string" ? Date.parse(body.RedirectDueDate) : Number.NaN;
    const p: BankPayment = {
      paymentId: this.id(),
      terminalKey,
      orderId,
      amount,
      initialAmount: amount,
      payType: body.PayType === "T" ? "T" : "O",
      status: "NEW",
      description: typeof body.Description === "string" ? body.Description : null,
      recurrent: body.Recurrent === "Y",
      customerKey: typeof body.CustomerKey === "string" ? body.CustomerKey : null,
      notificationUrl: typeof body.NotificationURL === "string" ? body.NotificationURL : this.notificationUrl,
      successUrl: typeof body.SuccessURL === "string" ? body.SuccessURL : null,
      failUrl: typeof body.FailURL === "string" ? body.FailURL : null,
      // Without RedirectDueDate the link lives 24 hours.
      redirectDueDate: Number.isNaN(due) ? Date.now() + 24 * 3600_000 : due,
      formToken: crypto.randomUUID(),
      sbp: false,
      requestKey: null,
      errorCode: "0",
      card: null,
      refunds: [],
      operationInitiatorType: typeof data.OperationInitiatorType === "string" ? data.OperationInitiatorType : null,
    };
    if (p.recurrent && p.customerKey) this.customers.set(p.customerKey, this.customers.get(p.customerKey) ?? { terminalKey, cards: [] });
    this.payments.set(p.paymentId, p);
    return ok({ Status: "NEW", PaymentId: p.paymentId, OrderId: p.orderId, Amount: p.amount, PaymentURL: `${this.publicUrl}/pay/${p.formToken}` });
  }

  private getQr(p: BankPayment | undefined, ok: (f: Record<string, unknown>) => unknown) {
    if (!p || (p.status !== "NEW" && p.status !== "FORM_SHOWED")) return this.error("8");
    // The bank's floor for a fast payment: 10 rubles.
    if (p.amount < 1000) return this.error("3016");
    if (p.payType === "T") return this.error("3016");
    p.sbp = true;
    p.status = "FORM_SHOWED";
    if (p.recurrent && p.requestKey === null) {
      p.requestKey = this.id();
      this.bindings.set(p.requestKey, { requestKey: p.requestKey, terminalKey: p.terminalKey, status: "NEW", accountToken: null, notificationUrl: this.notificationUrl });
    }
    return ok({ OrderId: p.orderId, PaymentId: p.paymentId, Data: `${this.publicUrl}/qr/${p.formToken}`, ...(p.requestKey ? { RequestKey: p.requestKey } : {}) });
  }

  private confirm(p: BankPayment | undefined, body: Record<string, unknown>, ok: (f: Record<string, unknown>) => unknown) {
    if (!p) return this.error("255");
    if (p.status !== "AUTHORIZED") return this.error("8", { Status: p.status });
    const amount = typeof body.Amount === "number" ? body.Amount : p.amount;
    if (amount <= 0 || amount > p.amount) return this.error("251");
    p.amount = amount;
    this.move(p, "CONFIRMED");
    return ok({ OrderId: p.orderId, Status: "CONFIRMED", PaymentId: p.paymentId });
  }

  /** Cancel: a NEW payment canceled, a hold released (REVERSED), a confirmed payment refunded, all or part. */
  private cancel(p: BankPayment | undefined, body: Record<string, unknown>, ok: (f: Record<string, unknown>) => unknown) {
    if (!p) return this.error("255");
    const original = p.amount;
    const reply = () => ok({ OrderId: p.orderId, Status: p.status, OriginalAmount: original, NewAmount: p.amount, PaymentId: p.paymentId });
    if (p.status === "NEW" || p.status === "FORM_SHOWED") {
      p.status = "CANCELED";
      return reply();
    }
    const amount = typeof body.Amount === "number" ? body.Amount : p.amount;
    if (amount <= 0 || amount > p.amount) return this.error("251");
    if (p.status === "AUTHORIZED" || p.status === "PARTIAL_REVERSED") {
      p.amount -= amount;
      this.move(p, p.amount === 0 ? "REVERSED" : "PARTIAL_REVERSED");
      return reply();
    }
    if (p.status !== "CONFIRMED" && p.status !== "PARTIAL_REFUNDED") return this.error("8", { Status: p.status });
    const externalId = typeof body.ExternalRequestId === "string" && body.ExternalRequestId !== "" ? body.ExternalRequestId : null;
    // The bank checks ExternalRequestId before a refund, except for SBP operations, where it does not work.
    if (externalId && !p.sbp && p.refunds.some((r) => r.externalRequestId === externalId))
      return ok({ OrderId: p.orderId, Status: p.status, OriginalAmount: original, NewAmount: p.amount, PaymentId: p.paymentId, ExternalRequestId: externalId });
    const refund = { externalRequestId: externalId, amount, status: "DONE" as "ASYNC" | "DONE" };
    p.refunds.push(refund);
    p.amount -= amount;
    if (p.sbp) {
      // An SBP refund goes through NSPK: ASYNC_REFUNDING, settled a moment later with its notification.
      refund.status = "ASYNC";
      p.status = "ASYNC_REFUNDING";
      const settle = Bun.sleep(this.opts.sbpRefundMs ?? 200).then(() => {
        refund.status = "DONE";
        this.move(p, p.amount === 0 ? "REFUNDED" : "PARTIAL_REFUNDED");
      });
      this.track(settle);
      return ok({ OrderId: p.orderId, Status: "ASYNC_REFUNDING", OriginalAmount: original, NewAmount: p.amount, PaymentId: p.paymentId });
    }
    this.move(p, p.amount === 0 ? "REFUNDED" : "PARTIAL_REFUNDED");
    return ok({
      OrderId: p.orderId,
      Status: p.status,
      OriginalAmount: original,
      NewAmount: p.amount,
      PaymentId: p.paymentId,
      ...(externalId ? { ExternalRequestId: externalId } : {}),
    });
  }

  private charge(p: BankPayment | undefined, body: Record<string, unknown>, ok: (f: Record<string, unknown>) => unknown) {
    if (!p) return this.error("255");
    if (p.status !== "NEW") return this.error("8", { Status: p.status });
    const card = [...this.customers.values()]
      .filter((c) => c.terminalKey === p.terminalKey)
      .flatMap((c) => c.cards)
      .find((c) => c.rebillId === String(body.RebillId ?? ""));
    if (!card || card.status !== "A") return this.error("7");
    p.card = { cardId: card.cardId, rebillId: null, pan: card.pan, expDate: card.expDate };
    const next = this.nextCharge;
    this.nextCharge = null;
    const code = next?.code ?? card.decline;
    if (code) {
      this.decline(p, code);
      return { ...this.error(code), TerminalKey: p.terminalKey, Status: "REJECTED", PaymentId: p.paymentId, OrderId: p.orderId, Amount: p.amount };
    }
    this.authorize(p);
    return ok({ Status: p.status, PaymentId: p.paymentId, OrderId: p.orderId, Amount: p.amount });
  }

  private chargeQr(p: BankPayment | undefined, body: Record<string, unknown>, ok: (f: Record<string, unknown>) => unknown) {
    if (!p) return this.error("255");
    if (p.status !== "NEW") return this.error("8", { Status: p.status });
    const b = [...this.bindings.values()].find((x) => x.accountToken === body.AccountToken && x.terminalKey === p.terminalKey);
    if (!b || b.status !== "ACTIVE") return this.error("3015");
    p.sbp = true;
    const next = this.nextCharge;
    this.nextCharge = null;
    if (next) {
      this.decline(p, next.code);
      return { ...this.error(next.code), TerminalKey: p.terminalKey, Status: "REJECTED", PaymentId: p.paymentId, OrderId: p.orderId, Amount: p.amount };
    }
    this.move(p, "CONFIRMED");
    return ok({ Status: "CONFIRMED", PaymentId: p.paymentId, OrderId: p.orderId, Amount: p.amount });
  }

  // ── the buyer's pages ─────────────────────────────────────────────────────

  private byToken(token: string): BankPayment | undefined {
    return [...this.payments.values()].find((p) => p.formToken === token);
  }

  private expired(p: BankPayment): boolean {
    if (p.redirectDueDate !== null && Date.now() > p.redirectDueDate && (p.status === "NEW" || p.status === "FORM_SHOWED")) p.status = "DEADLINE_EXPIRED";
    return p.status === "DEADLINE_EXPIRED";
  }

  private html(body: string, status = 200): Response {
    return new Response(body, { status, headers: { "Content-Type": "text/html; charset=utf-8" } });
  }

  private redirect(to: string | null, fallback: string): Response {
    return new Response(null, { status: 303, headers: { Location: to ?? fallback } });
  }

  private async form(req: Request, token: string): Promise<Response> {
    const p = this.byToken(token);
    if (!p) return this.html(closedPage("Платёж не найден"), 404);
    if (this.expired(p) || (p.status !== "NEW" && p.status !== "FORM_SHOWED")) return this.html(closedPage(`Платёж в статусе ${p.status}`), 409);
    if (req.method === "GET") {
      p.status = "FORM_SHOWED";
      return this.html(cardForm(p, `/pay/${token}`));
    }
    const form = await req.formData();
    const pan = String(form.get("pan") ?? "").replace(/\D/g, "");
    const exp = String(form.get("exp") ?? "");
    if (!luhn(pan) || !/^\d{2}\/\d{2}$/.test(exp)) return this.html(cardForm(p, `/pay/${token}`, "Проверьте номер карты и срок действия"), 400);
    p.card = { cardId: this.id(), rebillId: null, pan, expDate: exp.replace("/", "") };
    if (CARD_3DS.has(pan)) {
      p.status = "3DS_CHECKING";
      return this.redirect(`/pay/${token}/3ds`, "/");
    }
    return this.completeCard(p);
  }

  private async threeDs(req: Request, token: string): Promise<Response> {
    const p = this.byToken(token);
    if (!p || p.status !== "3DS_CHECKING") return this.html(closedPage("Проверка недоступна"), 409);
    if (req.method === "GET") return this.html(threeDsPage(`/pay/${token}/3ds`));
    const code = String((await req.formData()).get("code") ?? "");
    if (code !== THREE_DS_CODE || p.card?.pan === TEST_CARDS.failed3ds) {
      p.errorCode = "101";
      this.move(p, "AUTH_FAIL");
      return this.redirect(p.failUrl, "/");
    }
    p.status = "3DS_CHECKED";
    return this.completeCard(p);
  }

  /** The card's issuer decides: a declined test card or a declineNext() declines, else the payment is authorised (and confirmed unless two-stage). */
  private completeCard(p: BankPayment): Response {
    const code = this.takeDecline() ?? CARD_DECLINES[p.card!.pan];
    if (code) {
      this.decline(p, code);
      return this.redirect(p.failUrl, "/");
    }
    if (p.recurrent && p.customerKey) {
      p.card!.rebillId = this.id();
      this.customers.get(p.customerKey)!.cards.push({ cardId: p.card!.cardId, rebillId: p.card!.rebillId, pan: p.card!.pan, expDate: p.card!.expDate, status: "A", decline: null });
    }
    this.authorize(p);
    return this.redirect(p.successUrl, "/");
  }

  private takeDecline(): string | undefined {
    if (!this.nextDecline) return undefined;
    const code = this.nextDecline.code;
    if (--this.nextDecline.times <= 0) this.nextDecline = null;
    return code;
  }

  private async qrApp(req: Request, token: string): Promise<Response> {
    const p = this.byToken(token);
    if (!p || !p.sbp) return this.html(closedPage("QR не найден"), 404);
    if (p.status !== "FORM_SHOWED") return this.html(closedPage(`Платёж в статусе ${p.status}`), 409);
    if (req.method === "GET") return this.html(qrApp(p, `/qr/${token}`));
    const action = String((await req.formData()).get("action") ?? "");
    if (action === "decline") this.decline(p, "1005");
    else {
      const code = this.takeDecline();
      if (code) this.decline(p, code);
      else this.paySbp(p, action === "bind");
    }
    const after: Status = p.status;
    return this.html(closedPage(after === "CONFIRMED" ? "Оплачено" : "Платёж отклонён"));
  }

  private paySbp(p: BankPayment, bind: boolean): void {
    if (bind && p.requestKey) {
      const b = this.bindings.get(p.requestKey)!;
      b.status = "ACTIVE";
      b.accountToken = `A${this.id()}`;
      this.linkNotification(b);
    }
    this.move(p, "CONFIRMED");
  }

  private async bindApp(req: Request, requestKey: string): Promise<Response> {
    const b = this.bindings.get(requestKey);
    if (!b || (b.status !== "PROCESSING" && b.status !== "NEW")) return this.html(closedPage("Привязка недоступна"), 409);
    if (req.method === "GET") return this.html(bindPage(`/qr/bind/${requestKey}`));
    const bind = String((await req.formData()).get("action") ?? "") === "bind";
    b.status = bind ? "ACTIVE" : "INACTIVE";
    if (bind) b.accountToken = `A${this.id()}`;
    this.linkNotification(b);
    return this.html(closedPage(bind ? "Счёт привязан" : "Привязка отклонена"));
  }

  // ── statuses and notifications ────────────────────────────────────────────

  private authorize(p: BankPayment): void {
    this.move(p, "AUTHORIZED");
    if (p.payType === "O") this.move(p, "CONFIRMED");
  }

  private decline(p: BankPayment, code: string): void {
    p.errorCode = code;
    this.move(p, "REJECTED");
  }

  private move(p: BankPayment, status: Status): void {
    p.status = status;
    const notified = ["AUTHORIZED", "CONFIRMED", "REJECTED", "AUTH_FAIL", "REVERSED", "PARTIAL_REVERSED", "REFUNDED", "PARTIAL_REFUNDED", "DEADLINE_EXPIRED"];
    if (!notified.includes(status) || !p.notificationUrl || this.notify.dropOrders.has(p.orderId)) return;
    const body: Record<string, unknown> = {
      TerminalKey: p.terminalKey,
      OrderId: p.orderId,
      Success: status !== "REJECTED" && status !== "AUTH_FAIL" && status !== "DEADLINE_EXPIRED",
      Status: status,
      PaymentId: Number(p.paymentId),
      ErrorCode: p.errorCode,
      Amount: p.amount,
    };
    if (p.card) {
      body.CardId = Number(p.card.cardId);
      body.Pan = mask(p.card.pan);
      body.ExpDate = p.card.expDate;
      if (p.card.rebillId) body.RebillId = Number(p.card.rebillId);
    } else if (p.sbp) {
      body.Pan = "+7 (***) ***-**-42";
    }
    if (p.customerKey) body.CustomerKey = p.customerKey;
    this.send(p.notificationUrl, body, this.opts.terminals[p.terminalKey]!);
  }

  private linkNotification(b: Binding): void {
    if (!b.notificationUrl) return;
    const body: Record<string, unknown> = {
      TerminalKey: b.terminalKey,
      RequestKey: b.requestKey,
      NotificationType: "LINKACCOUNT",
      Success: b.status === "ACTIVE",
      ErrorCode: "0",
      Status: b.status,
      ...(b.accountToken ? { AccountToken: b.accountToken, BankMemberId: "100000000004", BankMemberName: "Т-Банк" } : {}),
    };
    this.send(b.notificationUrl, body, this.opts.terminals[b.terminalKey]!);
  }

  private send(url: string, fields: Record<string, unknown>, password: string): void {
    const body = { ...fields, Token: bankToken(fields, password) };
    for (let copies = this.notify.duplicate ? 2 : 1; copies > 0; copies--) {
      if (this.notify.hold) this.held.push({ url, body, password });
      else this.track(this.deliver(url, body, password));
    }
  }

  /** One notification, sent again until the answer is exactly "OK" (the bank's rule), within the retry schedule. */
  private async deliver(url: string, body: Record<string, unknown>, _password: string): Promise<void> {
    const delays = this.opts.notificationRetryMs ?? [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000];
    for (let attempt = 0; attempt <= delays.length && !this.stopped; attempt++) {
      const record: Delivery = { url, body, status: null, answer: "" };
      try {
        const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(5000) });
        record.status = res.status;
        record.answer = await res.text();
      } catch (e) {
        record.answer = (e as Error).message;
      }
      this.deliveries.push(record);
      if (record.status === 200 && record.answer === "OK") return;
      if (attempt < delays.length) await Bun.sleep(delays[attempt]!);
    }
  }

  private track(p: Promise<unknown>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }
}

export const startFakeTBank = (opts: FakeTBankOptions) => new FakeTBank(opts);
