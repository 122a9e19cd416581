import type { Lang } from "@payaccept/platform";
import type { UserRole } from "../store/schema.ts";
import type { Messages } from "./i18n.ts";

/** What every view needs besides its own data: language, messages, the form token, who is signed in. */
export type Page = {
  lang: Lang;
  t: Messages;
  /** The CSRF token every form of this page carries. */
  csrf: string;
  viewer: { email: string; role: UserRole } | undefined;
  /** This page's link in the other language: the same path and query (filters, period), the language switched. */
  otherLangHref: string;
};
