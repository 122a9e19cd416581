import type { Child } from "hono/jsx";
import type { Page } from "../page.ts";
import { Badge, Money, When } from "./components.tsx";

/** One movement of money: when, how much, its status (a badge) and optional notes under it. */
export type MoneyMove = { at: string; amountKopecks: number; tone: "ok" | "bad" | "neutral"; status: string; notes?: Child };

/** Payouts, refunds: a small table of money movements (time, amount, status), or `empty` when there are none. */
export function MoneyMoves(props: { page: Page; class: string; timeLabel: string; moves: MoneyMove[]; empty: string }) {
  const { page } = props;
  const { t } = page;
  if (props.moves.length === 0) return <p class="muted">{props.empty}</p>;
  return (
    <table class={props.class}>
      <thead>
        <tr>
          <th scope="col">{props.timeLabel}</th>
          <th scope="col" class="num">
            {t.amount}
          </th>
          <th scope="col">{t.status}</th>
        </tr>
      </thead>
      <tbody>
        {props.moves.map((m) => (
          <tr>
            <td data-label={props.timeLabel}>
              <When page={page} at={m.at} />
            </td>
            <td data-label={t.amount} class="num">
              <Money page={page} kopecks={m.amountKopecks} />
            </td>
            <td data-label={t.status}>
              <Badge tone={m.tone}>{m.status}</Badge>
              {m.notes}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
