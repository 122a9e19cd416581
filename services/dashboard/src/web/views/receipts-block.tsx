import type { Receipt } from "@payaccept/contracts";
import { formatRubles } from "@payaccept/web-ui";
import type { Page } from "../page.ts";
import { Badge, failureSaid, Money, When } from "./components.tsx";
import { TAXATION_LABELS, VAT_LABELS } from "./receipt-settings.tsx";

const STATUS_TONE = { REGISTERED: "ok", FAILED: "bad", PENDING: "neutral" } as const;

/** A payment's fiscal receipts (docs/receipts.md): what was sent, to whom, and the register's answer. */
export function ReceiptsBlock(props: { page: Page; receipts: Receipt[] }) {
  const { page } = props;
  const { t } = page;
  if (props.receipts.length === 0) return <p class="muted">{t.noReceipts}</p>;
  return (
    <ul class="deliveries">
      {props.receipts.map((r) => (
        <li class="delivery" data-receipt={r.id}>
          <div class="delivery-head">
            <Badge tone="neutral">{t.receiptKinds[r.kind] ?? r.kind}</Badge>
            <Badge tone={STATUS_TONE[r.status]}>{t.receiptStatuses[r.status] ?? r.status}</Badge>
            <Money page={page} kopecks={r.amountKopecks} />
          </div>
          <dl class="facts compact">
            <dt>{t.receiptCustomer}</dt>
            <dd>{r.customer.email ?? r.customer.phone}</dd>
            <dt>{t.receiptTaxationUsed}</dt>
            <dd>{TAXATION_LABELS[r.taxation]}</dd>
            {r.fiscal ? (
              <>
                <dt>{t.receiptFiscal}</dt>
                <dd class="receipt-fiscal">
                  {r.fiscal.documentNumber} · {r.fiscal.fiscalSign} · {r.fiscal.driveNumber}
                </dd>
                <dt>{t.receiptRegisteredAt}</dt>
                <dd>
                  <When page={page} at={r.fiscal.registeredAt} />
                </dd>
              </>
            ) : null}
          </dl>
          {r.lastErrorCode && r.status !== "REGISTERED" ? <p class="muted">{t.receiptError(r.attempts, failureSaid(page, r.lastErrorCode, r.lastErrorParams))}</p> : null}
          <ul>
            {r.items.map((i) => (
              <li>
                {i.name}: {t.receiptItem(i.quantity, formatRubles(i.priceKopecks, page.lang), VAT_LABELS[i.vat])} = <Money page={page} kopecks={i.amountKopecks} />
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}
