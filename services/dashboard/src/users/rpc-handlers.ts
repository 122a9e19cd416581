import { customIssue, rpcs, validationFailed } from "@payaccept/contracts";
import { serve, type NatsConnection, type Subscription } from "@payaccept/platform";
import { Email, PASSWORD_LENGTH, passwordProblem } from "./credentials-input.ts";
import { createOperator, signUp, type UserDeps } from "./users.ts";

/** The email, normalised, or VALIDATION_FAILED listing every problem of the pair. */
function checkCredentials(req: { email: string; password: string }): string {
  const email = Email.safeParse(req.email);
  const { min, max } = PASSWORD_LENGTH;
  const problems = [
    ...(email.success ? [] : [customIssue("email", "EMAIL", "must be an email address")]),
    ...(passwordProblem(req.password) ? [customIssue("password", "PASSWORD_LENGTH", `must be ${min} to ${max} characters`, { min, max })] : []),
  ];
  if (!email.success || problems.length > 0) throw validationFailed(problems);
  return email.data;
}

/** Serves rpcs.dashboard.* (queue group "dashboard"): users made by the admin CLI and the launcher. */
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
  ];
}
