import { AccountDetailsInput, DomainError, issuesOf, rpcs, type AccountDetails, type ValidationIssue } from "@payaccept/contracts";
import { describeIssue, describeReason } from "@payaccept/web-ui";
import { Hono, type Context } from "hono";
import { mailOwnersOfPayoutAccount } from "../../team/payout-account-mail.ts";
import { loaded } from "../backend.ts";
import type { WebDeps } from "../deps.ts";
import type { WebEnv } from "../env.ts";
import { formOf, text } from "../forms.ts";
import { accountOf, viewerOf } from "../middleware.ts";
import { DETAILS_FIELDS, DetailsPage, formOfView, type DetailsField, type DetailsForm } from "../views/details-page.tsx";
import { done, flashFor } from "./action.ts";

const FIELD_OF_PATH = new Map<string, DetailsField>(Object.entries(DETAILS_FIELDS).map(([field, path]) => [path, field as DetailsField]));

/** The form's problems, each at its field in the page's words ("должно состоять из 10 цифр"); the rest above the form. */
function withProblems(c: Context<WebEnv>, form: DetailsForm, issues: ValidationIssue[], prefix = ""): DetailsForm {
  const { lang } = c.get("page");
  const errors: DetailsForm["errors"] = {};
  const general: string[] = [];
  for (const issue of issues) {
    const field = FIELD_OF_PATH.get(issue.path.startsWith(prefix) ? issue.path.slice(prefix.length) : issue.path);
    if (field && !errors[field]) errors[field] = describeIssue(lang, { ...issue, path: "" });
    else if (!field) general.push(describeIssue(lang, issue));
  }
  return { ...form, errors, general };
}

/** The account's legal and bank details: the page, and their entry or change. */
export function detailsRoutes(deps: WebDeps): Hono<WebEnv> {
  const r = new Hono<WebEnv>();

  const page = async (c: Context<WebEnv>, form?: DetailsForm, notice?: string, status: 200 | 400 = 200) => {
    const view = await loaded(deps.backend.call(rpcs.directory.getAccountDetails, { accountId: accountOf(c) }));
    const shown = form ?? formOfView(view.ok ? view.value : undefined);
    return c.html(<DetailsPage page={c.get("page")} view={view} form={shown} twoFactor={viewerOf(c).twoFactor} notice={notice} />, status);
  };

  r.get("/balance/details", async (c) => {
    const saved = await flashFor(c, deps, ["detailsSaved"]);
    return page(c, undefined, saved && c.get("page").t.detailsSaved(saved.heldUntil, saved.mailed));
  });

  r.post("/balance/details", async (c) => {
    const accountId = accountOf(c);
    const posted = await formOf(c);
    const values = Object.fromEntries(Object.keys(DETAILS_FIELDS).map((f) => [f, text(posted, f)])) as DetailsForm["values"];
    const form: DetailsForm = { values, errors: {}, general: [] };
    const parsed = AccountDetailsInput.safeParse({
      legalForm: values.legalForm,
      name: values.name,
      inn: values.inn,
      ogrn: values.ogrn,
      kpp: values.kpp,
      payout: { bik: values.bik, bankName: values.bankName, correspondentAccount: values.correspondentAccount, account: values.account, recipientName: values.recipientName },
    });
    if (!parsed.success) return page(c, withProblems(c, form, issuesOf(parsed.error)), undefined, 400);
    const saved = await save(c, accountId, parsed.data).catch((e: unknown) => {
      if (!(e instanceof DomainError)) throw e;
      // The directory checks the same rules (another replica of the page may be older): its issues are at "details.<field>".
      if (e.reason === "VALIDATION_FAILED") return withProblems(c, form, (e.params.issues ?? []) as ValidationIssue[], "details.");
      if (e.code === "BAD_REQUEST" || e.code === "CONFLICT") return { ...form, general: describeReason(c.get("page").lang, e.reason, e.params) };
      throw e;
    });
    if ("values" in saved) return page(c, saved, undefined, 400);
    return done(c, deps, "/balance/details", { kind: "detailsSaved", heldUntil: saved.heldUntil, mailed: saved.mailed });
  });

  /** Saves the details; a new payout account is mailed to every owner of the account. */
  async function save(c: Context<WebEnv>, accountId: string, details: AccountDetails): Promise<{ heldUntil: number | null; mailed: number }> {
    const result = await deps.backend.call(rpcs.directory.setAccountDetails, { accountId, details });
    if (!result.payoutAccountChanged) return { heldUntil: result.payoutsHeldUntil, mailed: 0 };
    const mailed = await mailOwnersOfPayoutAccount(deps.team, {
      accountId,
      byEmail: viewerOf(c).user.email,
      previous: result.previousPayoutAccount,
      next: details.payout,
      heldUntil: result.payoutsHeldUntil ?? deps.now(),
      at: result.payoutAccountChangedAt ?? deps.now(),
    });
    return { heldUntil: result.payoutsHeldUntil, mailed };
  }

  return r;
}
