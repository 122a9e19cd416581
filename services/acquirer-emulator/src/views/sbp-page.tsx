import type { SessionRow } from "../store/schema.ts";
import { BankLayout, Purchase } from "./layout.tsx";

/**
 * The buttons of the bank app, by what the session asks: a payment, a payment the buyer agreed
 * to save (pay and bind; paying without binding stays possible), or a binding without payment.
 */
export const SBP_DECISIONS = {
  PAY: ["pay", "decline"],
  SAVE: ["pay-bind", "pay", "decline"],
  BINDING: ["bind", "refuse-binding"],
} as const;
export type SbpDecision = (typeof SBP_DECISIONS)[keyof typeof SBP_DECISIONS][number];

export const BINDINGS_PATH = "/app/bindings";

const shopName = (s: SessionRow) => (s.merchantName ? `Магазин «${s.merchantName}»` : "Магазин");

/** What a binding lets the shop do, and how to take it back: the payer's consent is to this text. */
function BindingConsent(props: { session: SessionRow }) {
  return (
    <div class="consent" id="binding-consent">
      <p>
        <strong>{shopName(props.session)}</strong> просит привязать ваш счёт в Тестовом банке. После привязки магазин сможет списывать с него деньги по СБП без
        вашего подтверждения каждый раз — например, за подписку.
      </p>
      <p>Отозвать привязку можно в любой момент в разделе «Мои привязки» этого приложения; после этого списания прекратятся.</p>
    </div>
  );
}

function Back(props: { href: string; label: string }) {
  return (
    <p>
      <a class="button" href={props.href}>
        {props.label}
      </a>
    </p>
  );
}

const BindingsLink = () => (
  <p>
    <a href={BINDINGS_PATH}>Мои привязки</a>
  </p>
);

/** The "bank app" a buyer reaches by scanning the QR code or following the deep link. */
export function SbpPage(props: { session: SessionRow; token: string }) {
  const s = props.session;
  const binding = s.kind === "BINDING";
  const decisions = SBP_DECISIONS[binding ? "BINDING" : s.saveMethod ? "SAVE" : "PAY"];
  const label: Record<SbpDecision, string> = {
    pay: s.saveMethod ? "Оплатить без привязки" : "Оплатить",
    "pay-bind": "Оплатить и привязать счёт",
    decline: "Отклонить",
    bind: "Привязать счёт",
    "refuse-binding": "Отказаться",
  };
  return (
    <BankLayout title={binding ? "Привязка счёта по СБП" : "Оплата по СБП"}>
      {binding ? (s.description ? <p>{s.description}</p> : null) : <Purchase amountKopecks={s.amountKopecks} description={s.description} />}
      {s.status === "CANCELED" ? (
        <div class="result" role="status">
          <p>Этот QR-код больше не действует: оплату заказа продолжили другим способом. Деньги не списаны.</p>
          <Back href={s.returnUrl} label="Вернуться к заказу" />
        </div>
      ) : s.status === "PAID" ? (
        <div class="result ok" role="status">
          <p>Оплачено. Деньги отправлены магазину.</p>
          {s.methodId ? <p>Счёт привязан: {shopName(s)} сможет списывать с него деньги без подтверждения.</p> : null}
          {s.methodId ? <BindingsLink /> : null}
          <Back href={s.returnUrl} label="Вернуться в магазин" />
        </div>
      ) : s.status === "BOUND" ? (
        <div class="result ok" role="status">
          <p>Счёт привязан. {shopName(s)} сможет списывать с него деньги без подтверждения.</p>
          <BindingsLink />
          <Back href={s.returnUrl} label="Вернуться в магазин" />
        </div>
      ) : (
        <form method="post" action={`/sbp/${s.id}`}>
          <input type="hidden" name="token" value={props.token} />
          {binding || s.saveMethod ? <BindingConsent session={s} /> : null}
          {s.status === "DECLINED" ? <p role="status">{binding ? "Вы отказались от привязки. Её всё ещё можно дать." : "Вы отклонили этот платёж. Его всё ещё можно оплатить."}</p> : null}
          <div class="actions">
            {decisions
              .filter((d) => !(s.status === "DECLINED" && (d === "decline" || d === "refuse-binding")))
              .map((d, i) => (
                <button type="submit" name="decision" value={d} class={i === 0 ? "primary" : "secondary"}>
                  {label[d]}
                </button>
              ))}
          </div>
        </form>
      )}
    </BankLayout>
  );
}
