import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { openUserStore } from "../store/open-user-store.ts";
import { Sessions } from "./sessions.ts";

const dir = mkdtempSync(join(tmpdir(), "dashboard-sessions-"));
const users = await openUserStore({ engine: "sqlite", path: join(dir, "dashboard.db") });
afterAll(async () => {
  await users.close();
  rmSync(dir, { recursive: true, force: true });
});
await users.insertUser({ id: "user-1", accountId: "account-1", email: "a@example.com", passwordHash: "x", role: "owner", createdAt: 0 });

/** Sign-in, "who am I" and sign-out around one Sessions, at a clock the test moves. */
function appWith(secure: boolean) {
  const clock = { now: 1_000_000 };
  const sessions = new Sessions(users, { ttlMs: 60_000, secure, now: () => clock.now });
  const app = new Hono();
  app.post("/in", async (c) => {
    await sessions.start(c, "user-1");
    return c.text("in");
  });
  app.get("/me", async (c) => c.text((await sessions.current(c))?.user.email ?? "nobody"));
  app.post("/out", async (c) => {
    await sessions.end(c, await sessions.current(c));
    return c.text("out");
  });
  return { app, clock };
}

test("over http: an HttpOnly SameSite=Lax cookie that opens the session until its lifetime ends", async () => {
  const { app, clock } = appWith(false);
  const setCookie = (await app.request("/in", { method: "POST" })).headers.get("set-cookie")!;
  expect(setCookie).toMatch(/^dash_session=[A-Za-z0-9_-]{43}; Max-Age=60; Path=\/; HttpOnly; SameSite=Lax$/);
  const cookie = { Cookie: setCookie.split(";")[0]! };
  expect(await (await app.request("/me", { headers: cookie })).text()).toBe("a@example.com");
  clock.now += 59_999;
  expect(await (await app.request("/me", { headers: cookie })).text()).toBe("a@example.com");
  clock.now += 1;
  expect(await (await app.request("/me", { headers: cookie })).text()).toBe("nobody");
});

test("over https the cookie is Secure and __Host- prefixed; sign-out removes the session itself", async () => {
  const { app } = appWith(true);
  const setCookie = (await app.request("/in", { method: "POST" })).headers.get("set-cookie")!;
  expect(setCookie).toMatch(/^__Host-dash_session=[A-Za-z0-9_-]{43}; Max-Age=60; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
  const cookie = { Cookie: setCookie.split(";")[0]! };
  await app.request("/out", { method: "POST", headers: cookie });
  expect(await (await app.request("/me", { headers: cookie })).text()).toBe("nobody");
});

test("forged or malformed tokens open nothing", async () => {
  const { app } = appWith(false);
  for (const value of ["", "x", "A".repeat(43), "../../../etc/passwd"]) {
    expect(await (await app.request("/me", { headers: { Cookie: `dash_session=${value}` } })).text()).toBe("nobody");
  }
});
