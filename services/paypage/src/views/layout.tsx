import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { DocumentHead } from "@payaccept/web-ui/src/document-head.tsx";
import type { Lang, Messages } from "../i18n.ts";

export type PageContext = { lang: Lang; t: Messages };

/**
 * The document shell. `follow` turns on live status (the script listens to the events URL and
 * reloads when the status changes); `refreshWithoutScript` is the fallback for browsers without JS.
 */
export function Layout(props: {
  page: PageContext;
  title: string;
  status?: string;
  method?: string;
  follow?: string;
  refreshWithoutScript?: boolean;
  children: Child;
}) {
  const { lang, t } = props.page;
  const other: Lang = lang === "ru" ? "en" : "ru";
  return (
    <>
      {raw("<!doctype html>")}
      <html lang={lang}>
        <DocumentHead title={props.title} stylesheet="/assets/pay.css" script="/assets/pay.js">
          {props.refreshWithoutScript ? (
            <noscript>
              <meta http-equiv="refresh" content="10" />
            </noscript>
          ) : null}
        </DocumentHead>
        <body data-status={props.status} data-method={props.method} data-events={props.follow}>
          <header class="topbar">
            <span class="brand">
              <svg class="lock" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
                <path fill="currentColor" d="M4 7V5a4 4 0 1 1 8 0v2h1v8H3V7h1Zm2 0h4V5a2 2 0 1 0-4 0v2Z" />
              </svg>
              {t.securePayment}
            </span>
            <a class="lang" href={`?lang=${other}`} hreflang={other} lang={other} aria-label={t.switchLangName}>
              {t.switchLang}
            </a>
          </header>
          <main id="main" class="sheet">
            {props.children}
          </main>
        </body>
      </html>
    </>
  );
}

/** A link or button-looking link to where the merchant wants the buyer back, when there is one. */
export function ReturnLink(props: { href: string | null; page: PageContext }) {
  return props.href ? (
    <a class="button primary" href={props.href} rel="noopener noreferrer">
      {props.page.t.returnToShop}
    </a>
  ) : (
    <p class="muted">{props.page.t.closePage}</p>
  );
}
