import type { Csrf, TrustedProxies } from "@payaccept/platform";
import type { Sessions } from "../users/sessions.ts";
import type { UserDeps } from "../users/users.ts";
import type { Backend } from "./backend.ts";
import type { Flash } from "./flash.ts";

/** Everything the web UI needs; shops and keys come from the directory service over NATS (backend). */
export type WebDeps = {
  users: UserDeps;
  sessions: Sessions;
  csrf: Csrf;
  flash: Flash;
  backend: Backend;
  secureCookies: boolean;
  trustedProxies: TrustedProxies;
  now: () => number;
};
