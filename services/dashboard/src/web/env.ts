import type { AppEnv } from "@payaccept/platform";
import type { Server } from "bun";
import type { SessionWithUser } from "../store/user-store.ts";
import type { Page } from "./page.ts";

/**
 * The signed-in person: who they are, their team and second factor, which session (its stored
 * hash) they use, when they last proved who they are, and the session cookie's token.
 */
export type Viewer = Omit<SessionWithUser, "session"> & { sessionId: string; token: string; freshAt: number };

export type WebEnv = {
  Bindings: { server?: Server<undefined> };
  Variables: AppEnv["Variables"] & { viewer: Viewer | undefined; page: Page };
};
