import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { DomainError, PaymentMethod, SandboxOutcome } from "@payaccept/contracts";
import { type AppEnv } from "@payaccept/platform";
import { qrSvg, setPageSecurityHeaders, type Csrf } from "@payaccept/web-ui";
import type { CheckoutClient } from "../checkout.ts";
import { renderError } from "../error-pages.tsx";
import { noticeFor } from "../notice.ts";
import { pageContext } from "../page-context.ts";
import { PayPage } from "../views/pay-page.tsx";
import { SAVE_AGREED, SAVE_FIELD } from "../views/save-consent.tsx";
import { paymentIdOf } from "./payment-id.ts";

export type PayRoutesDeps = { checkout: CheckoutClient; csrf: Csrf; secureCookies: boolean };

async function formOf(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody().catch(() => ({}));
  return Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/**
 * Runs a buyer's action. A conflict (the payment moved on meanwhile: canceled, already being paid
 * with a method that cannot be switched, final) is not an error for the buyer: the redirect shows
 * the payment as it now is, with `refused` in its query so the page can say why.
 */
async function act(c: Context, id: string, action: () => Promise<unknown>, refused = "") {
  let query = "";
  try {
    await action();
  } catch (e) {
    if (!(e instanceof DomainError && e.code === "CONFLICT")) throw e;
    c.get("log").info({ paymentId: id, reason: e.reason, params: e.params }, "buyer action no longer applies");
    query = refused;
  }
  return c.redirect(`/pay/${id}${query}`, 303);
}

/** GET the payment page; POST a choice of method or, in a sandbox, an outcome. */
export function payRoutes(deps: PayRoutesDeps): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  r.use("/pay/:id/*", bodyLimit({ maxSize: 8 * 1024, onError: (c) => renderError(c, new DomainError("FORM_TOO_LARGE"), deps.secureCookies) }));

  const verifiedForm = async (c: Context, id: string) => {
    const form = await formOf(c);
    if (!deps.csrf.verify(c, id, form.csrf)) throw new DomainError("CSRF_TOKEN_INVALID");
    return form;
  };

  r.get("/pay/:id", async (c) => {
    const page = pageContext(c, deps.secureCookies);
    const id = paymentIdOf(c);
    const view = await deps.checkout.get(id);
    const qr = view.payment.status === "PENDING" && view.sbp ? await qrSvg(view.sbp.qrPayload) : null;
    // Our card form posts to the acquirer (its form-action allowed); a hosted card page is a link away, no form of ours.
    setPageSecurityHeaders(c, view.payment.status === "PENDING" && !view.card?.hosted ? view.card?.formAction : undefined);
    const notice = noticeFor(view, c.req.query(), page.t);
    return c.html(<PayPage view={view} page={page} csrf={deps.csrf.tokenFor(c, id)} qrSvg={qr} now={Date.now()} notice={notice} />);
  });

  r.post("/pay/:id/start", async (c) => {
    const id = paymentIdOf(c);
    const form = await verifiedForm(c, id);
    const method = PaymentMethod.safeParse(form.method);
    if (!method.success) throw new DomainError("PAYMENT_METHOD_UNKNOWN");
    // Consent to save the method (asked only when the merchant wants it saved); no tick is a refusal.
    const saveMethod = form[SAVE_FIELD] === SAVE_AGREED;
    return act(c, id, () => deps.checkout.start(id, method.data, saveMethod), `?tried=${method.data}`);
  });

  r.post("/pay/:id/sandbox", async (c) => {
    const id = paymentIdOf(c);
    const outcome = SandboxOutcome.safeParse((await verifiedForm(c, id)).outcome);
    if (!outcome.success) throw new DomainError("SANDBOX_OUTCOME_UNKNOWN");
    return act(c, id, () => deps.checkout.sandboxOutcome(id, outcome.data));
  });

  return r;
}
