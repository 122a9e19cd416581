import type { Csrf, TrustedProxies } from "@payaccept/platform";
import type { DirectoryDeps } from "../directory/directory.ts";
import type { Sessions } from "../users/sessions.ts";
import type { UserDeps } from "../users/users.ts";
import type { Backend } from "./backend.ts";
import type { Flash } from "./flash.ts";

/** Everything the web UI needs; the directory operations are called directly, not over NATS. */
export type WebDeps = {
  directory: DirectoryDeps;
  users: UserDeps;
  sessions: Sessions;
  csrf: Csrf;
  flash: Flash;
  backend: Backend;
  secureCookies: boolean;
  trustedProxies: TrustedProxies;
};
