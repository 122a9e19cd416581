import { DomainError, rpcs, type Payment, type ShopDetail } from "@payaccept/contracts";
import { randomToken } from "@payaccept/platform";
import { Hono, type Context } from "hono";
import { loaded } from "../backend.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { accountOf } from "../middleware.ts";
import { ownedShop, paymentIdParam } from "../ownership.ts";
import { PAYMENTS_PER_PAGE, planQuery, readFilter, type PaymentFilter } from "../payment-filter.ts";
import { paymentsCsvStream } from "../payments-csv-stream.ts";
import { parseRubles } from "../amount-input.ts";
import { formOf, text } from "../forms.ts";
import { ConfirmPaymentAction, PaymentPage, type PaymentAction, type RefundForm } from "../views/payment-page.tsx";
import { PaymentsPage, type PaymentsResult } from "../views/payments-page.tsx";
import { done, flashFor, refusalsOf } from "./action.ts";

/**
 * Keyset page of the CSV export: a Payment with 4 KB of metadata is under 6 KB of JSON, so a page
 * stays well inside NATS's default 1 MB message limit.
 */
const EXPORT_PAGE_SIZE = 100;

/** The Payments tab: list and lookup, a payment's detail, refund and cancel, the CSV export. */
export function paymentRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();
  const shopOf = async (c: Context<WebEnv>) => (await ownedShop(deps.backend, accountOf(c), c.req.param("shopId")!)).shop;
  const filterOf = (c: Context<WebEnv>) => readFilter((n) => c.req.query(n), (n) => c.req.queries(n) ?? []);
  /** Scoped by the shop: another shop's payment is NOT_FOUND, so the account check covers it. */
  const paymentOf = (shop: ShopDetail, id: string) => deps.backend.call(rpcs.payments.get, { shopId: shop.id, id: paymentIdParam(id) });

  r.get("/shops/:shopId/payments", async (c) => {
    const shop = await shopOf(c);
    const filter = filterOf(c);
    return c.html(<PaymentsPage page={c.get("page")} shop={shop} filter={filter} result={await find(shop, filter)} />);
  });

  async function find(shop: ShopDetail, filter: PaymentFilter): Promise<PaymentsResult> {
    const query = planQuery(filter);
    if (query.kind === "invalid") return query;
    if (query.kind === "lookup") {
      const lookup = deps.backend.call(rpcs.payments.lookup, { shopId: shop.id, orderId: query.orderId }).catch((e) => {
        if (e instanceof DomainError && e.code === "NOT_FOUND") return null;
        throw e;
      });
      return { kind: "lookup", loaded: await loaded(lookup) };
    }
    const list = deps.backend.call(rpcs.payments.browse, {
      shopId: shop.id,
      ...query.days,
      status: query.period.status,
      sort: filter.sort,
      page: query.page,
      limit: PAYMENTS_PER_PAGE,
    });
    return { kind: "list", loaded: await loaded(list) };
  }

  r.get("/shops/:shopId/payments.csv", async (c) => {
    const shop = await shopOf(c);
    const filter = { ...filterOf(c), orderId: "" };
    const query = planQuery(filter);
    if (query.kind !== "list") throw new DomainError("PERIOD_INVALID");
    const stream = await paymentsCsvStream(
      async (after) => {
        const { items } = await deps.backend.call(rpcs.payments.exportPage, { shopId: shop.id, ...query.period, after, limit: EXPORT_PAGE_SIZE });
        if (items.length === 0) return [];
        // A receipts service that is down fails the export: an empty column would read as "no receipt".
        const receipts = (await deps.backend.call(rpcs.receipts.summaries, { shopId: shop.id, paymentIds: items.map((p) => p.id) })).items;
        return items.map((payment) => ({ payment, receipts: receipts.filter((r) => r.paymentId === payment.id) }));
      },
      EXPORT_PAGE_SIZE,
      (err) => c.get("log").warn({ shopId: shop.id, reason: (err as Error).message }, "payments export aborted midway"),
    );
    // The Moscow dates as chosen (planQuery has checked they are dates), not the UTC instants.
    const period = [filter.from, filter.to].filter(Boolean).join("_") || "all";
    return c.body(stream, 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="payments-${shop.id}-${period}.csv"`,
    });
  });

  r.get("/shops/:shopId/payments/:paymentId", async (c) => {
    const shop = await shopOf(c);
    const payment = await paymentOf(shop, c.req.param("paymentId"));
    const [deliveries, history, receipts] = await Promise.all([
      loaded(deps.backend.call(rpcs.webhooks.log, { shopId: shop.id, paymentId: payment.id, limit: 50 }).then((l) => l.items)),
      loaded(
        Promise.all([deps.backend.call(rpcs.payments.history, { shopId: shop.id, id: payment.id }), deps.backend.call(rpcs.payments.listRefunds, { shopId: shop.id, id: payment.id })]).then(
          ([h, r]) => ({ events: h.items, refunds: r.items }),
        ),
      ),
      loaded(deps.backend.call(rpcs.receipts.list, { shopId: shop.id, paymentIds: [payment.id] }).then((l) => l.items)),
    ]);
    const notice = await flashFor(c, deps, ["notice"]);
    return c.html(
      <PaymentPage
        page={c.get("page")}
        shop={shop}
        payment={payment}
        deliveries={deliveries}
        history={history}
        receipts={receipts}
        notice={notice && c.get("page").t[notice.text]}
      />,
    );
  });

  /** A refund of the amount typed in rubles; one the bank declined is a refusal with the bank's reason. */
  const refund = async (c: Context<WebEnv>, shop: ShopDetail, p: Payment, form: RefundForm | undefined) => {
    const amountKopecks = parseRubles(form?.amount ?? "");
    if (!amountKopecks) throw new DomainError("REFUND_AMOUNT_INVALID");
    const made = await deps.backend.slow(rpcs.payments.refund, { shopId: shop.id, id: p.id, amountKopecks, idempotencyKey: form?.idempotencyKey || undefined });
    if (made.status === "FAILED") throw DomainError.of(made.failureCode ?? "REFUND_FAILED", made.failureParams ?? {});
  };
  /** A capture of the hold, all of it or the amount typed in rubles (the rest released); a repeat of the same capture is harmless. */
  const capture = async (_c: Context<WebEnv>, shop: ShopDetail, p: Payment, form: RefundForm | undefined) => {
    const amountKopecks = parseRubles(form?.amount ?? "");
    if (!amountKopecks) throw new DomainError("CAPTURE_AMOUNT_INVALID");
    await deps.backend.slow(rpcs.payments.capture, { shopId: shop.id, id: p.id, amountKopecks });
  };
  // A cancel of an AUTHORIZED payment voids its hold (the API's one model): the same action, its own words.
  const confirmable: [PaymentAction, (c: Context<WebEnv>, shop: ShopDetail, payment: Payment, form: RefundForm | undefined) => Promise<unknown>][] = [
    ["refund", refund],
    ["capture", capture],
    ["cancel", (_c, shop, p) => deps.backend.slow(rpcs.payments.cancel, { shopId: shop.id, id: p.id })],
  ];
  const noticeOf = (action: PaymentAction, before: Payment) =>
    action === "refund" ? "refunded" : action === "capture" ? "captured" : before.status === "AUTHORIZED" ? "voided" : "canceled";
  // Each rendering of the refund form gets its own key, so a double submit refunds once.
  const refundFormOf = async (c: Context<WebEnv>, action: PaymentAction): Promise<RefundForm | undefined> => {
    if (action === "cancel") return undefined;
    if (c.req.method === "GET") return { amount: "", idempotencyKey: randomToken(16) };
    const form = await formOf(c);
    return { amount: text(form, "amount"), idempotencyKey: text(form, "idempotencyKey").slice(0, 128) };
  };
  for (const [action, run] of confirmable) {
    r.get(`/shops/:shopId/payments/:paymentId/${action}`, async (c) => {
      const shop = await shopOf(c);
      const payment = await paymentOf(shop, c.req.param("paymentId"));
      return c.html(<ConfirmPaymentAction page={c.get("page")} shop={shop} payment={payment} action={action} refund={await refundFormOf(c, action)} />);
    });
    r.post(`/shops/:shopId/payments/:paymentId/${action}`, async (c) => {
      const shop = await shopOf(c);
      const payment = await paymentOf(shop, c.req.param("paymentId"));
      const form = await refundFormOf(c, action);
      const errors = await refusalsOf(c, () => run(c, shop, payment, form));
      if (errors.length > 0) return c.html(<ConfirmPaymentAction page={c.get("page")} shop={shop} payment={payment} action={action} refund={form} errors={errors} />, 409);
      return done(c, deps, `/shops/${shop.id}/payments/${payment.id}`, { kind: "notice", text: noticeOf(action, payment) });
    });
  }

  return r;
}
