import { DomainError, rpcs } from "@payaccept/contracts";
import { serve, type NatsConnection, type Subscription } from "@payaccept/platform";
import { Email, PASSWORD_LENGTH, passwordProblem } from "./credentials-input.ts";
import { createOperator, signUp, type UserDeps } from "./users.ts";

/** The email, normalised, or BAD_REQUEST listing every problem of the pair. */
function checkCredentials(req: { email: string; password: string }): string {
  const email = Email.safeParse(req.email);
  const problems = [
    ...(email.success ? [] : ["email: must be an email address"]),
    ...(passwordProblem(req.password) ? [`password: must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters`] : []),
  ];
  if (!email.success || problems.length > 0) throw new DomainError("BAD_REQUEST", problems);
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
