import { CARD_FORM_FIELDS as F } from "@payaccept/contracts";
import type { SessionRow } from "../store/schema.ts";
import { BankLayout, Errors, Purchase } from "./layout.tsx";

const shop = (s: SessionRow) => (s.merchantName ? `магазин «${s.merchantName}»` : "магазин");

/** What the buyer agreed to beyond this payment, said again where the card is entered. */
function Terms(props: { session: SessionRow }) {
  const s = props.session;
  return (
    <>
      {s.hold ? <p class="hint">Сумма будет заблокирована на карте. Магазин спишет её или её часть позже, остальное снова станет доступно.</p> : null}
      {s.saveMethod ? <p class="hint">Вы согласились сохранить карту: {shop(s)} сможет списывать с неё оплату без вас. Номер карты магазин не получит.</p> : null}
    </>
  );
}

/**
 * The acquirer's own card form, for a buyer who lands here directly or whose card data was
 * refused. Submitted values are never echoed back: card data is not kept even in a page.
 */
export function CardPage(props: { session: SessionRow; token: string; errors: string[] }) {
  const s = props.session;
  return (
    <BankLayout title="Оплата картой">
      <Purchase amountKopecks={s.amountKopecks} description={s.description} />
      <Terms session={s} />
      <Errors messages={props.errors} />
      <form method="post" action={`/card/${s.id}`} autocomplete="on">
        <input type="hidden" name="token" value={props.token} />
        <label for="pan">Номер карты</label>
        <input id="pan" name={F.pan} inputmode="numeric" autocomplete="cc-number" required maxlength={23} />
        <div class="row">
          <div>
            <label for="exp">Срок действия (ММ/ГГ)</label>
            <input id="exp" name={F.exp} inputmode="numeric" autocomplete="cc-exp" placeholder="ММ/ГГ" required maxlength={7} />
          </div>
          <div>
            <label for="cvc">CVC</label>
            <input id="cvc" name={F.cvc} inputmode="numeric" autocomplete="cc-csc" required maxlength={4} type="password" />
          </div>
        </div>
        <label for="holder">Имя владельца</label>
        <input id="holder" name={F.holder} autocomplete="cc-name" maxlength={100} />
        <button type="submit" class="primary">
          Оплатить
        </button>
      </form>
    </BankLayout>
  );
}

/**
 * The 3-D Secure step: a wrong code declines at once, as issuers do after the last try. For a
 * merchant-initiated charge it is the authentication the bank asked for: the buyer confirms a
 * charge of their saved card here.
 */
export function ThreeDsPage(props: { session: SessionRow; token: string }) {
  const s = props.session;
  return (
    <BankLayout title="Подтверждение платежа">
      <Purchase amountKopecks={s.amountKopecks} description={s.description} />
      {s.kind === "CHARGE" ? <p>Банк просит подтвердить списание с сохранённой карты: его запросил {shop(s)}.</p> : <Terms session={s} />}
      <form method="post" action={`/card/${s.id}/3ds`}>
        <input type="hidden" name="token" value={props.token} />
        <label for="code">Код из SMS</label>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength={6} aria-describedby="code-hint" />
        <p id="code-hint" class="hint">
          3-D Secure тестового банка: код 123456 подтверждает оплату, любой другой отклоняет её.
        </p>
        <button type="submit" class="primary">
          Подтвердить
        </button>
      </form>
    </BankLayout>
  );
}
