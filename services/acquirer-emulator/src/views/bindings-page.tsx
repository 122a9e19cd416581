import type { ProviderSavedMethod } from "@payaccept/contracts";
import { BankLayout, formatMoscowDate } from "./layout.tsx";

export type BindingItem = { method: ProviderSavedMethod; merchantName: string | null; token: string };

/** The bank app's list of the payer's SBP bindings, each active one with its revoke button. */
export function BindingsPage(props: { items: BindingItem[]; revoked?: boolean }) {
  return (
    <BankLayout title="Мои привязки">
      <p class="hint">Магазины, которым вы разрешили списывать деньги со счёта по СБП без подтверждения.</p>
      {props.revoked ? (
        <p class="result ok" role="status">
          Привязка отозвана: магазин больше не сможет списывать деньги с вашего счёта.
        </p>
      ) : null}
      {props.items.length === 0 ? (
        <p>Привязок нет.</p>
      ) : (
        <ul class="bindings">
          {props.items.map(({ method, merchantName, token }) => (
            <li class="binding" data-method-id={method.methodId}>
              <div>
                <strong>{merchantName ? `«${merchantName}»` : "Магазин"}</strong>
                <div class="hint">
                  привязан {formatMoscowDate(method.createdAt)}
                  {method.status === "REVOKED" && method.revokedAt ? `, отозван ${formatMoscowDate(method.revokedAt)}` : ""}
                </div>
              </div>
              {method.status === "ACTIVE" ? (
                <form method="post" action={`/app/bindings/${method.methodId}/revoke`}>
                  <input type="hidden" name="token" value={token} />
                  <button type="submit" class="secondary" aria-label={`Отозвать привязку ${merchantName ?? "магазина"}`}>
                    Отозвать
                  </button>
                </form>
              ) : (
                <span class="status">Отозвана</span>
              )}
            </li>
          ))}
        </ul>
      )}
    </BankLayout>
  );
}
