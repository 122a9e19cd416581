import { Hono } from "hono";
import type { AppEnv } from "@payaccept/platform";
import type { CallbackDispatcher } from "../callbacks/dispatcher.ts";
import { bindingsOf, methodView, revokeByPayer } from "../methods.ts";
import type { AcquirerDb } from "../store/db.ts";
import { BindingsPage } from "../views/bindings-page.tsx";
import { MessagePage } from "../views/layout.tsx";
import { BINDINGS_PATH } from "../views/sbp-page.tsx";
import { formOf } from "./bank-pages.tsx";
import type { FormTokens } from "./form-token.ts";
import { originOf, originVerdict } from "./origins.ts";
import { payerOf } from "./payer-cookie.ts";
import { setPageSecurityHeaders } from "./security-headers.ts";

/**
 * The payer's side of SBP bindings in the bank app: the list of the shops they let charge their
 * account, and a revoke button for each active one. Revoking reports METHOD_REVOKED to payments
 * by a signed callback (methods.ts, revokeByPayer).
 */
export function bankApp(deps: { db: AcquirerDb; tokens: FormTokens; publicUrl: string; dispatcher: CallbackDispatcher }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const ownOrigin = originOf(deps.publicUrl);

  app.get(BINDINGS_PATH, (c) => {
    const payer = payerOf(c);
    const now = Date.now();
    const items = (payer ? bindingsOf(deps.db, payer) : []).map((row) => ({
      method: methodView(row, now),
      merchantName: row.merchantName,
      token: deps.tokens.issue("revoke", row.id),
    }));
    setPageSecurityHeaders(c);
    return c.html(<BindingsPage items={items} revoked={c.req.query("revoked") !== undefined} />);
  });

  app.post(`${BINDINGS_PATH}/:id/revoke`, async (c) => {
    const id = c.req.param("id");
    const form = await formOf(c);
    setPageSecurityHeaders(c);
    if (originVerdict(c, [ownOrigin]) === "foreign" || !deps.tokens.verify("revoke", id, form.token)) {
      return c.html(<MessagePage title="Страница устарела" text="Откройте список привязок заново." link={{ href: BINDINGS_PATH, label: "Мои привязки" }} />, 403);
    }
    const payer = payerOf(c);
    const done = payer ? revokeByPayer(deps.db, id, payer, Date.now()) : null;
    if (!done) return c.html(<MessagePage title="Привязка не найдена" text="Такой привязки нет среди ваших." link={{ href: BINDINGS_PATH, label: "Мои привязки" }} />, 404);
    if (done.callbackId) {
      c.get("log").info({ methodId: id, callbackId: done.callbackId }, "binding revoked by the payer");
      void deps.dispatcher.deliverNow(done.callbackId);
    }
    return c.redirect(`${BINDINGS_PATH}?revoked`, 303);
  });

  return app;
}
