import { Hono, type Context } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import { bodyLimit } from "hono/body-limit";
import { CardForm } from "@payaccept/contracts";
import type { AppEnv } from "@payaccept/platform";
import type { CallbackDispatcher } from "../callbacks/dispatcher.ts";
import { cardBrandOf } from "@payaccept/domain";
import { recordOutcome, type Outcome } from "../outcomes.ts";
import { cardTimeIsUp, findSession } from "../sessions.ts";
import type { AcquirerDb } from "../store/db.ts";
import type { CardOnFile, SessionRow } from "../store/schema.ts";
import { chargeProfileOf, decideCard, THREE_DS_PASSING_CODE } from "../test-cards.ts";
import { CardPage, ThreeDsPage } from "../views/card-page.tsx";
import { MessagePage } from "../views/layout.tsx";
import { SBP_DECISIONS, SbpPage, type SbpDecision } from "../views/sbp-page.tsx";
import type { FormPurpose, FormTokens } from "./form-token.ts";
import { originOf, originVerdict } from "./origins.ts";
import { ensurePayer } from "./payer-cookie.ts";
import { setPageSecurityHeaders } from "./security-headers.ts";

/** How long a buyer's redirect waits for the first callback attempt; later attempts run in the background. */
const INLINE_DELIVERY_WAIT_MS = 2000;

export type BankPagesDeps = {
  db: AcquirerDb;
  tokens: FormTokens;
  publicUrl: string;
  dispatcher: CallbackDispatcher;
  holdTtlMs: number;
};

export type FormFields = Record<string, string>;

export const formOf = async (c: Context): Promise<FormFields> => {
  const body = await c.req.parseBody().catch(() => ({}));
  return Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === "string"));
};

/** What is kept of a card the buyer agreed to save: never its number (docs/acquirer-emulator.md, "Card tokens"). */
const cardOnFile = (card: CardForm): CardOnFile => ({
  brand: cardBrandOf(card.pan),
  last4: card.pan.slice(-4),
  expMonth: card.exp.month,
  expYear: card.exp.year,
  profile: chargeProfileOf(card.pan),
});

/** The outcome of the SBP bank app's buttons; a binding's consent makes this browser's payer its owner. */
function sbpOutcome(c: Context, decision: SbpDecision, publicUrl: string): Outcome {
  switch (decision) {
    case "pay":
      return { event: "APPROVED" };
    case "pay-bind":
      return { event: "APPROVED", bindPayer: ensurePayer(c, publicUrl) };
    case "bind":
      return { event: "BOUND", payerId: ensurePayer(c, publicUrl) };
    case "decline":
      return { event: "DECLINED", reason: "declined_by_buyer" };
    case "refuse-binding":
      return { event: "DECLINED", reason: "declined_by_payer" };
  }
}

/** The buyer-facing pages: the SBP "bank app", the card form target and its 3-D Secure step (also a charge's authentication). */
export function bankPages(deps: BankPagesDeps): Hono<AppEnv> {
  const pages = new Hono<AppEnv>();
  const ownOrigin = originOf(deps.publicUrl);
  const page = (c: Context, status: number, title: string, text: string, link?: { href: string; label: string }) => {
    setPageSecurityHeaders(c);
    return c.html(<MessagePage title={title} text={text} link={link} />, status as 400);
  };
  pages.use("*", bodyLimit({ maxSize: 16 * 1024, onError: (c) => page(c, 413, "Слишком большой запрос", "Форма не может быть такой большой.") }));
  const notFound = (c: Context) => page(c, 404, "Платёж не найден", "Ссылка неверна или устарела.");
  const staleForm = (c: Context, back: string) =>
    page(c, 403, "Страница устарела", "Форму нельзя отправить с этой страницы. Откройте платёж заново.", { href: back, label: "Открыть заново" });

  /** The session of the URL, if it exists and is of that method. */
  const sessionOf = (c: Context, method: SessionRow["method"]) => {
    const s = findSession(deps.db, c.req.param("id") ?? "");
    return s && s.method === method ? s : undefined;
  };

  /** A POST from one of our own pages: same origin (when the browser says) and our token for this session. */
  const fromOwnPage = (c: Context, form: FormFields, purpose: FormPurpose, s: SessionRow) =>
    originVerdict(c, [ownOrigin]) !== "foreign" && deps.tokens.verify(purpose, s.id, form.token);

  const settle = async (s: SessionRow, outcome: Outcome) => {
    const { session, callbackId } = recordOutcome(deps.db, s.id, outcome, Date.now(), deps.holdTtlMs);
    if (callbackId) await Promise.race([deps.dispatcher.deliverNow(callbackId), Bun.sleep(INLINE_DELIVERY_WAIT_MS)]);
    return session;
  };

  /** A card form after the buyer's deadline: nothing is charged, and the buyer goes back to the payment page. */
  const cardTimeUp = (c: Context, s: SessionRow) =>
    page(c, 409, "Время оплаты истекло", "Срок оплаты заказа закончился, поэтому карта не принята и деньги не списаны.", { href: s.returnUrl, label: "Вернуться к заказу" });

  /** Where a card session sends the buyer when there is nothing to fill in on this page. */
  const cardRedirect = (c: Context, s: SessionRow) =>
    s.status === "CHALLENGE" ? c.redirect(`/card/${s.id}/3ds`, 303) : s.status === "OPEN" ? c.redirect(`/card/${s.id}`, 303) : c.redirect(s.returnUrl, 303);

  const cardHeaders = (c: Context, s: SessionRow) => {
    const back = originOf(s.returnUrl);
    setPageSecurityHeaders(c, back ? [back] : []);
  };

  pages.get("/sbp/:id", (c) => {
    const s = sessionOf(c, "SBP");
    if (!s) return notFound(c);
    setPageSecurityHeaders(c);
    return c.html(<SbpPage session={s} token={deps.tokens.issue("sbp", s.id)} />);
  });

  pages.post("/sbp/:id", async (c) => {
    const s = sessionOf(c, "SBP");
    if (!s) return notFound(c);
    const form = await formOf(c);
    if (!fromOwnPage(c, form, "sbp", s)) return staleForm(c, `/sbp/${s.id}`);
    const decision = SBP_DECISIONS[s.kind === "BINDING" ? "BINDING" : s.saveMethod ? "SAVE" : "PAY"].find((d) => d === form.decision);
    if (!decision) return page(c, 400, "Неверный запрос", "Выберите одну из кнопок на странице.", { href: `/sbp/${s.id}`, label: "Назад" });
    await settle(s, sbpOutcome(c, decision, deps.publicUrl));
    return c.redirect(`/sbp/${s.id}`, 303);
  });

  /** A GET of one card step: its page while the session is at that step, else wherever the session now is. */
  const cardStep = (step: SessionRow["status"], render: (s: SessionRow) => JSX.Element) => (c: Context) => {
    const s = sessionOf(c, "CARD");
    if (!s) return notFound(c);
    if (s.status !== step) return cardRedirect(c, s);
    if (cardTimeIsUp(s, Date.now())) return cardTimeUp(c, s);
    cardHeaders(c, s);
    return c.html(render(s));
  };

  pages.get("/card/:id", cardStep("OPEN", (s) => <CardPage session={s} token={deps.tokens.issue("card", s.id)} errors={[]} />));
  pages.get("/card/:id/3ds", cardStep("CHALLENGE", (s) => <ThreeDsPage session={s} token={deps.tokens.issue("3ds", s.id)} />));

  pages.post("/card/:id", async (c) => {
    const s = sessionOf(c, "CARD");
    if (!s) return notFound(c);
    const form = await formOf(c);
    // The payment page's card form posts here straight from the buyer's browser (card data never
    // passes our servers), so the merchant page's origin — that of the session's returnUrl — may post without our token.
    const returnOrigin = originOf(s.returnUrl);
    const fromPaymentPage = returnOrigin !== null && c.req.header("origin") === returnOrigin;
    if (!fromPaymentPage && !fromOwnPage(c, form, "card", s)) return staleForm(c, `/card/${s.id}`);
    if (s.status !== "OPEN") return cardRedirect(c, s);
    if (cardTimeIsUp(s, Date.now())) return cardTimeUp(c, s);
    const card = CardForm.safeParse(form);
    if (!card.success) {
      cardHeaders(c, s);
      return c.html(<CardPage session={s} token={deps.tokens.issue("card", s.id)} errors={card.error.issues.map((i) => i.message)} />, 400);
    }
    const decision = decideCard(card.data.pan);
    const saved = s.saveMethod ? cardOnFile(card.data) : undefined;
    if (decision === "challenge") {
      recordOutcome(deps.db, s.id, { event: "CHALLENGE", card: saved }, Date.now(), deps.holdTtlMs);
      return c.redirect(`/card/${s.id}/3ds`, 303);
    }
    await settle(s, decision === "approve" ? { event: "APPROVED", card: saved } : { event: "DECLINED", reason: "card_declined" });
    return c.redirect(s.returnUrl, 303);
  });

  pages.post("/card/:id/3ds", async (c) => {
    const s = sessionOf(c, "CARD");
    if (!s) return notFound(c);
    const form = await formOf(c);
    if (!fromOwnPage(c, form, "3ds", s)) return staleForm(c, `/card/${s.id}/3ds`);
    if (s.status !== "CHALLENGE") return cardRedirect(c, s);
    if (cardTimeIsUp(s, Date.now())) return cardTimeUp(c, s);
    const passed = form.code?.trim() === THREE_DS_PASSING_CODE;
    await settle(s, passed ? { event: "APPROVED" } : { event: "DECLINED", reason: "3ds_failed" });
    return c.redirect(s.returnUrl, 303);
  });

  return pages;
}
