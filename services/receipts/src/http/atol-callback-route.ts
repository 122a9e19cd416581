import { bodyLimit } from "hono/body-limit";
import { Hono } from "hono";
import { DomainError } from "@payaccept/contracts";
import { jsonError, type AppEnv } from "@payaccept/platform";
import { RegisterCallFailed } from "../register/port.ts";
import { handleAtolCallback, type CallbackDeps } from "../register/atol/atol-callback.ts";

const MAX_BODY = 64 * 1024;

/**
 * POST /atol/callback: АТОЛ's result of a document (ATOL_CALLBACK_URL points here from the
 * internet). 200 once handled or found not ours; 400 for a body that is not a callback; 503 when
 * АТОЛ could not be asked for the document's state, which the receipt's next poll asks again.
 */
export function atolCallbackRoutes(d: CallbackDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/atol/callback", bodyLimit({ maxSize: MAX_BODY, onError: (c) => jsonError(c, new DomainError("BODY_TOO_LARGE", { maxBytes: MAX_BODY })) }), async (c) => {
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return jsonError(c, new DomainError("MALFORMED_JSON"));
    }
    try {
      const outcome = await handleAtolCallback(d, body);
      c.get("log").info(outcome, "АТОЛ callback");
      return c.json({ result: outcome.result });
    } catch (e) {
      if (e instanceof DomainError) return jsonError(c, e);
      if (!(e instanceof RegisterCallFailed)) throw e;
      c.get("log").warn({ error: e.failure.reason, errorParams: e.failure.params }, "АТОЛ callback: the document's state could not be asked; its poll will");
      return c.json({ result: "retry" }, 503);
    }
  });
  return app;
}
