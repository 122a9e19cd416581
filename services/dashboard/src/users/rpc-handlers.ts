import { customIssue, rpcs, UNNAMED_CALLER, validationFailed } from "@payaccept/contracts";
import { actorOf, serve, type NatsConnection, type Subscription } from "@payaccept/platform";
import { recordTeamFact } from "../team/audit.ts";
import { Email, PASSWORD_LENGTH, passwordProblem } from "./credentials-input.ts";
import { resetSecondFactor } from "./two-factor.ts";
import { createOperator, signUp, type UserDeps } from "./users.ts";

const emailIssue = () => customIssue("email", "EMAIL", "must be an email address");

/** The email, normalised, or VALIDATION_FAILED listing every problem of the pair. */
function checkCredentials(req: { email: string; password: string }): string {
  const email = Email.safeParse(req.email);
  const { min, max } = PASSWORD_LENGTH;
  const problems = [
    ...(email.success ? [] : [emailIssue()]),
    ...(passwordProblem(req.password) ? [customIssue("password", "PASSWORD_LENGTH", `must be ${min} to ${max} characters`, { min, max })] : []),
  ];
  if (!email.success || problems.length > 0) throw validationFailed(problems);
  return email.data;
}

/** Serves rpcs.dashboard.* (queue group "dashboard"): users made (and second factors reset) by the admin CLI and the launcher. */
export function serveUserRpcs(nc: NatsConnection, deps: UserDeps): Subscription[] {
  const opts = { queue: "dashboard", log: deps.log };
  return [
    serve(
      nc,
      rpcs.dashboard.createOperator,
      async (req) => {
        const user = await createOperator(deps, checkCredentials(req), req.password);
        return { userId: user.id, email: user.email };
      },
      opts,
    ),
    serve(
      nc,
      rpcs.dashboard.createMerchant,
      async (req) => {
        const user = await signUp(deps, checkCredentials(req), req.password, req.accountId);
        return { userId: user.id, email: user.email, accountId: req.accountId };
      },
      opts,
    ),
    serve(
      nc,
      rpcs.dashboard.resetTwoFactor,
      async (req, msg) => {
        const email = Email.safeParse(req.email);
        if (!email.success) throw validationFailed([emailIssue()]);
        const user = await resetSecondFactor(deps.users, email.data);
        deps.log.warn({ userId: user.id }, "second factor reset by an operator; the user's sessions ended");
        recordTeamFact(deps, "two_factor.reset", actorOf(msg) ?? UNNAMED_CALLER, user.accountId, {
          target: { type: "member", id: user.id },
          before: { email: user.email, twoFactor: true },
          after: { twoFactor: false, sessionsEnded: true },
        });
        return { userId: user.id, email: user.email };
      },
      opts,
    ),
  ];
}
