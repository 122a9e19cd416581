import type { CheckoutView } from "@payaccept/contracts";
import { formatRubles } from "@payaccept/web-ui";
import type { PageContext } from "./layout.tsx";

/** Who is paid, for what, and how much: the part of the page every screen shares. */
export function Summary(props: { view: CheckoutView; page: PageContext }) {
  const { payment, shopName } = props.view;
  const { t, lang } = props.page;
  return (
    <section class="summary" aria-label={t.pageTitle}>
      {payment.isTest ? (
        <p class="badge" title={t.testNote}>
          {t.testBadge}
        </p>
      ) : null}
      <p class="total">
        <span class="total-label">{payment.status === "CREATED" || payment.status === "PENDING" ? t.amount : t.amountSettled}</span>
        <span class="amount">{formatRubles(payment.amountKopecks, lang)}</span>
      </p>
      <dl>
        <dt>{t.shop}</dt>
        <dd class="shop">{shopName}</dd>
        {payment.description ? (
          <>
            <dt>{t.purpose}</dt>
            <dd class="description">{payment.description}</dd>
          </>
        ) : null}
        <dt>{t.order}</dt>
        <dd class="order">{payment.orderId}</dd>
      </dl>
    </section>
  );
}
