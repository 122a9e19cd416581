import { raw } from "hono/html";
import type { Child } from "hono/jsx";

// Made at the first page that shows them: an Intl format loads its locale's data, about 4 MiB
// resident from start otherwise (docs/performance.md, "Memory").
let rubles: Intl.NumberFormat | undefined;
export const formatAmount = (kopecks: number) => (rubles ??= new Intl.NumberFormat("ru-RU", { style: "currency", currency: "RUB" })).format(kopecks / 100);
let moscowDate: Intl.DateTimeFormat | undefined;
export const formatMoscowDate = (iso: string) =>
  (moscowDate ??= new Intl.DateTimeFormat("ru-RU", { timeZone: "Europe/Moscow", day: "numeric", month: "long", year: "numeric" })).format(new Date(iso));

/** The emulator's "bank" chrome: clearly marked as a test bank, in Russian like the banks it stands in for. */
export function BankLayout(props: { title: string; children: Child }) {
  return (
    <>
      {raw("<!doctype html>")}
      <html lang="ru">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{props.title} — Тестовый банк</title>
        <link rel="stylesheet" href="/assets/bank.css" />
      </head>
      <body>
        <header class="bank-header">
          <span class="bank-name">Тестовый банк</span>
          <span class="bank-note">эмулятор эквайера, деньги не списываются</span>
        </header>
        <main class="bank-main">
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </body>
      </html>
    </>
  );
}

export function Purchase(props: { amountKopecks: number; description: string | null }) {
  return (
    <dl class="purchase">
      <dt>Сумма</dt>
      <dd class="amount">{formatAmount(props.amountKopecks)}</dd>
      {props.description ? (
        <>
          <dt>Назначение</dt>
          <dd>{props.description}</dd>
        </>
      ) : null}
    </dl>
  );
}

export function Errors(props: { messages: string[] }) {
  if (props.messages.length === 0) return null;
  return (
    <div class="errors" role="alert">
      <ul>
        {props.messages.map((m) => (
          <li>{m}</li>
        ))}
      </ul>
    </div>
  );
}

export function MessagePage(props: { title: string; text: string; link?: { href: string; label: string } }) {
  return (
    <BankLayout title={props.title}>
      <p>{props.text}</p>
      {props.link ? (
        <p>
          <a class="button" href={props.link.href}>
            {props.link.label}
          </a>
        </p>
      ) : null}
    </BankLayout>
  );
}
