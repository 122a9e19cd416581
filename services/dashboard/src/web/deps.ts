import type { TrustedProxies } from "@payaccept/platform";
import type { Csrf } from "@payaccept/web-ui";
import type { TeamDeps } from "../team/members.ts";
import type { Sessions, SignInChallenges } from "../users/sessions.ts";
import type { UserDeps } from "../users/users.ts";
import type { Backend } from "./backend.ts";
import type { Flash } from "./flash.ts";

/** Everything the web UI needs; shops and keys come from the directory service over NATS (backend). */
export type WebDeps = {
  users: UserDeps;
  team: TeamDeps;
  sessions: Sessions;
  challenges: SignInChallenges;
  csrf: Csrf;
  flash: Flash;
  backend: Backend;
  secureCookies: boolean;
  trustedProxies: TrustedProxies;
  now: () => number;
  /** DASHBOARD_REAUTH_AFTER: how long a proof of identity covers sensitive actions. */
  reauthAfterMs: number;
};
