import type { Context } from "hono";
import { pickLang } from "@payaccept/web-ui";
import { MESSAGES } from "./i18n.ts";
import type { PageContext } from "./views/layout.tsx";

/** The buyer's language (query, else cookie, else Russian) and its messages. */
export function pageContext(c: Context, secureCookies: boolean): PageContext {
  const lang = pickLang(c, { cookie: "pp_lang", secure: secureCookies });
  return { lang, t: MESSAGES[lang] };
}
