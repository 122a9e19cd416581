import type { Lang } from "@payaccept/web-ui";
import type { UserRole } from "../store/schema.ts";
import { can, type Action } from "./access.ts";
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

/** Whether the page's viewer may do it: links and buttons of what their role does not allow are not shown. */
export const allows = (page: Page, action: Action): boolean => page.viewer !== undefined && can(page.viewer.role, action);
