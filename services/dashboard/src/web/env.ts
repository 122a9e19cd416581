import type { AppEnv } from "@payaccept/platform";
import type { Server } from "bun";
import type { UserRow } from "../store/schema.ts";
import type { Page } from "./page.ts";

/** The signed-in person: who they are, which session (its stored hash) they use, and its cookie token. */
export type Viewer = { user: UserRow; sessionId: string; token: string };

export type WebEnv = {
  Bindings: { server?: Server<undefined> };
  Variables: AppEnv["Variables"] & { viewer: Viewer | undefined; page: Page };
};
