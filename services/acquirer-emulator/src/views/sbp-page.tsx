import type { SessionRow } from "../store/schema.ts";
import { BankLayout, Purchase } from "./layout.tsx";

/** The "bank app" a buyer reaches by scanning the QR code or following the deep link. */
export function SbpPage(props: { session: SessionRow; token: string }) {
  const s = props.session;
  return (
    <BankLayout title="Оплата по СБП">
      <Purchase amountKopecks={s.amountKopecks} description={s.description} />
      {s.status === "CANCELED" ? (
        <div class="result" role="status">
          <p>Этот QR-код больше не действует: оплату заказа продолжили другим способом. Деньги не списаны.</p>
          <p>
            <a class="button" href={s.returnUrl}>
              Вернуться к заказу
            </a>
          </p>
        </div>
      ) : s.status === "PAID" ? (
        <div class="result ok" role="status">
          <p>Оплачено. Деньги отправлены магазину.</p>
          <p>
            <a class="button" href={s.returnUrl}>
              Вернуться в магазин
            </a>
          </p>
        </div>
      ) : (
        <form method="post" action={`/sbp/${s.id}`}>
          <input type="hidden" name="token" value={props.token} />
          {s.status === "DECLINED" ? <p role="status">Вы отклонили этот платёж. Его всё ещё можно оплатить.</p> : null}
          <div class="actions">
            <button type="submit" name="decision" value="pay" class="primary">
              Оплатить
            </button>
            {s.status === "DECLINED" ? null : (
              <button type="submit" name="decision" value="decline" class="secondary">
                Отклонить
              </button>
            )}
          </div>
        </form>
      )}
    </BankLayout>
  );
}
