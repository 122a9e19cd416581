import { describe, expect, test } from "bun:test";
import { Hono } from "hono";
import { Csrf } from "./csrf.ts";

const PAYMENT = "0190a0a0-0000-7000-8000-000000000001";
const OTHER = "0190a0a0-0000-7000-8000-000000000002";

/** A tiny app around the guard: GET issues a token, POST checks one. */
function appWith(csrf: Csrf) {
  const app = new Hono();
  app.get("/form/:id", (c) => c.text(csrf.tokenFor(c, c.req.param("id"))));
  app.post("/form/:id", async (c) => {
    const body = await c.req.parseBody();
    return csrf.verify(c, c.req.param("id"), body.token) ? c.text("ok") : c.text("forbidden", 403);
  });
  return app;
}

async function visit(app: Hono, id = PAYMENT, cookie?: string) {
  const res = await app.request(`/form/${id}`, { headers: cookie ? { Cookie: cookie } : {} });
  const setCookie = res.headers.get("set-cookie");
  return { token: await res.text(), setCookie, cookie: cookie ?? setCookie!.split(";")[0]! };
}

const post = (app: Hono, id: string, token: string | undefined, cookie?: string) =>
  app.request(`/form/${id}`, {
    method: "POST",
    body: new URLSearchParams(token === undefined ? {} : { token }),
    headers: cookie ? { Cookie: cookie } : {},
  });

describe("Csrf", () => {
  const csrf = new Csrf({ secret: "a-test-secret-of-enough-length", secure: false, cookie: "pp_csrf" });
  const app = appWith(csrf);

  test("the first visit sets an HttpOnly SameSite=Lax nonce cookie; later visits reuse it", async () => {
    const first = await visit(app);
    expect(first.setCookie).toMatch(/^pp_csrf=[A-Za-z0-9_-]{43}; Max-Age=86400; Path=\/; HttpOnly; SameSite=Lax$/);
    const again = await visit(app, PAYMENT, first.cookie);
    expect(again.setCookie).toBeNull();
    expect(again.token).toBe(first.token);
  });

  test("accepts the token with its cookie", async () => {
    const { token, cookie } = await visit(app);
    expect((await post(app, PAYMENT, token, cookie)).status).toBe(200);
  });

  test("refuses a missing token, a missing cookie, another browser's cookie and another payment's token", async () => {
    const mine = await visit(app);
    const theirs = await visit(app);
    const forOther = await visit(app, OTHER, mine.cookie);
    const statuses = await Promise.all([
      post(app, PAYMENT, undefined, mine.cookie),
      post(app, PAYMENT, mine.token),
      post(app, PAYMENT, mine.token, theirs.cookie),
      post(app, PAYMENT, forOther.token, mine.cookie),
      post(app, PAYMENT, mine.token, "pp_csrf=../../etc"),
    ]);
    expect(statuses.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
  });

  test("tokens signed with another secret are refused", async () => {
    const { token, cookie } = await visit(appWith(new Csrf({ secret: "another-secret-of-enough-length", secure: false, cookie: "pp_csrf" })));
    expect((await post(app, PAYMENT, token, cookie)).status).toBe(403);
  });

  test("over https the cookie is Secure and carries the __Host- prefix", async () => {
    const { setCookie } = await visit(appWith(new Csrf({ secret: "a-test-secret-of-enough-length", secure: true, cookie: "pp_csrf" })));
    expect(setCookie).toMatch(/^__Host-pp_csrf=.*; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  });
});
