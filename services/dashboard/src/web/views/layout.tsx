import { raw } from "hono/html";
import { DocumentHead } from "@payaccept/web-ui/src/document-head.tsx";
import type { Child } from "hono/jsx";
import { allows, type Page } from "../page.ts";
import { CsrfField } from "./components.tsx";

/** The document shell: top bar with navigation and sign-out, then the page's own content. */
export function Layout(props: { page: Page; title: string; children: Child }) {
  const { lang, t, viewer } = props.page;
  const other = lang === "ru" ? "en" : "ru";
  return (
    <>
      {raw("<!doctype html>")}
      <html lang={lang}>
        <DocumentHead title={`${props.title} — ${t.brand}`} stylesheet="/assets/dashboard.css" script="/assets/dashboard.js" />
        <body>
          <a class="skip" href="#main">
            {t.skipToContent}
          </a>
          <header class="topbar">
            <a class="brand" href="/">
              {t.brand}
            </a>
            {viewer ? (
              <nav class="nav" aria-label={t.brand}>
                {viewer.role === "operator" ? (
                  <>
                    <a href="/ops/shops">{t.navOperator}</a>
                    <a href="/ops/payouts">{t.navOperatorPayouts}</a>
                    <a href="/ops/connectors">{t.navConnectors}</a>
                    <a href="/account">{t.navAccount}</a>
                  </>
                ) : (
                  <>
                    <a href="/overview">{t.navOverview}</a>
                    <a href="/shops">{t.navShops}</a>
                    {allows(props.page, "balance.view") ? <a href="/balance">{t.navBalance}</a> : null}
                    {allows(props.page, "team.view") ? <a href="/team">{t.navTeam}</a> : null}
                    {allows(props.page, "audit.view") ? <a href="/audit">{t.navAudit}</a> : null}
                    <a href="/account">{t.navAccount}</a>
                  </>
                )}
              </nav>
            ) : null}
            <div class="session">
              <a class="lang" href={props.page.otherLangHref} hreflang={other} lang={other} aria-label={t.switchLangName}>
                {t.switchLang}
              </a>
              {viewer ? (
                <form method="post" action="/logout" class="inline">
                  <CsrfField page={props.page} />
                  <span class="who" title={t.signedInAs}>
                    {viewer.email}
                  </span>
                  <button type="submit" class="link">
                    {t.signOut}
                  </button>
                </form>
              ) : null}
            </div>
          </header>
          <main id="main" class="main">
            {props.children}
          </main>
        </body>
      </html>
    </>
  );
}
