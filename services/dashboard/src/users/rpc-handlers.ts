import { DomainError, rpcs } from "@payaccept/contracts";
import { serve, type NatsConnection, type Subscription } from "@payaccept/platform";
import { Email, PASSWORD_LENGTH, passwordProblem } from "./credentials-input.ts";
import { createOperator, type UserDeps } from "./users.ts";

/** Serves rpcs.dashboard.* (queue group "dashboard"): operator accounts for the admin CLI. */
export function serveUserRpcs(nc: NatsConnection, deps: UserDeps): Subscription[] {
  return [
    serve(
      nc,
      rpcs.dashboard.createOperator,
      async (req) => {
        const email = Email.safeParse(req.email);
        const problems = [
          ...(email.success ? [] : ["email: must be an email address"]),
          ...(passwordProblem(req.password) ? [`password: must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters`] : []),
        ];
        if (!email.success || problems.length > 0) throw new DomainError("BAD_REQUEST", problems);
        const user = await createOperator(deps, email.data, req.password);
        return { userId: user.id, email: user.email };
      },
      { queue: "dashboard", log: deps.log },
    ),
  ];
}
