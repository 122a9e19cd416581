import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sha256Hex } from "@payaccept/platform";
import { DashboardClient, text, uniqueEmail } from "./dashboard-client.ts";
import { ENGINES } from "./harness/engines.ts";
import { Stack, STACK_START_MS } from "./harness/stack.ts";

// Each test drives a real dashboard process; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(60_000);

let stack: Stack;
describe.each(ENGINES)("the dashboard on %s", (engine) => {
  beforeAll(async () => {
    stack = await Stack.start({ services: ["directory", "dashboard"], env: { TRUSTED_PROXIES: "127.0.0.1" }, postgres: engine === "postgres" });
  }, STACK_START_MS);
  afterAll(() => stack?.stop());

  describe("sign-up and sign-in", () => {
    test("sign-up opens an HttpOnly SameSite=Lax session; the password and the session token are stored only as hashes", async () => {
      const client = DashboardClient.of(stack);
      const email = uniqueEmail("owner");
      const signedUp = await client.signUp(email.toUpperCase(), "a long enough password");
      expect(signedUp.status).toBe(303);
      expect(signedUp.location).toBe("/overview");
      const cookie = signedUp.headers.getSetCookie().find((c) => c.startsWith("dash_session="))!;
      expect(cookie).toMatch(/^dash_session=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Lax$/);
      const shops = await client.follow(signedUp);
      expect(shops.status).toBe(200);
      expect(text(shops.html)).toContain(email);

      const stored = await stack.storedText("dashboard", "dashboard.db");
      const token = client.cookies.get("dash_session")!;
      expect(stored).not.toContain("a long enough password");
      expect(stored).toContain("$argon2id$");
      expect(stored).not.toContain(token);
      expect(stored).toContain(sha256Hex(token));
    });

    test("the same address cannot sign up twice, whatever its case; short passwords are refused", async () => {
      const email = uniqueEmail("twice");
      expect((await DashboardClient.of(stack).signUp(email)).status).toBe(303);
      const again = await DashboardClient.of(stack).signUp(email.toUpperCase());
      expect(again.status).toBe(409);
      expect(text(again.html)).toContain("Этот email уже зарегистрирован");
      const short = await DashboardClient.of(stack).signUp(uniqueEmail("short"), "123456789");
      expect(short.status).toBe(400);
      expect(text(short.html)).toContain("не короче 10 символов");
    });

    test("a wrong password and an unknown email get the same answer; the right one signs in and returns to the page asked for", async () => {
      const email = uniqueEmail("back");
      await DashboardClient.of(stack).signUp(email);
      const client = DashboardClient.of(stack);
      const wrong = await client.signIn(email, "not the password");
      const unknown = await client.signIn(uniqueEmail("nobody"), "not the password");
      expect([wrong.status, unknown.status]).toEqual([401, 401]);
      expect(text(wrong.html)).toContain("Неверный email или пароль.");
      expect(text(unknown.html)).toContain("Неверный email или пароль.");
      expect(client.cookies.has("dash_session")).toBe(false);

      const asked = await client.get("/balance");
      expect(asked.status).toBe(303);
      expect(asked.location).toBe("/login?next=%2Fbalance");
      const signedIn = await client.signIn(email, undefined, "/balance");
      expect(signedIn.location).toBe("/balance");
    });

    test("after sign-in only our own paths are followed", async () => {
      const email = uniqueEmail("redirect");
      await DashboardClient.of(stack).signUp(email);
      for (const next of ["//evil.example/x", "https://evil.example/", "/\\evil.example"]) {
        expect((await DashboardClient.of(stack).signIn(email, undefined, next)).location).toBe("/overview");
      }
    });

    test("sign-out ends the session on the server: the old cookie opens nothing", async () => {
      const client = DashboardClient.of(stack);
      await client.signUp(uniqueEmail("leaver"));
      const stolen = client.cookies.get("dash_session")!;
      await client.get("/shops");
      const out = await client.post("/logout");
      expect(out.status).toBe(303);
      expect(out.location).toBe("/login");
      expect(client.cookies.has("dash_session")).toBe(false);

      const replay = DashboardClient.of(stack);
      replay.cookies.set("dash_session", stolen);
      expect((await replay.get("/shops")).location).toBe("/login?next=%2Fshops");
    });
  });

  describe("CSRF", () => {
    test("a forged POST without the token, or with another browser's token, is refused with 403 and changes nothing", async () => {
      const victim = DashboardClient.of(stack);
      await victim.signUp(uniqueEmail("victim"));
      const forged = await victim.post("/shops", { name: "Forged", kind: "live" }, { csrf: null });
      expect(forged.status).toBe(403);
      expect(text(forged.html)).toContain("Форма устарела");

      const attacker = DashboardClient.of(stack);
      await attacker.signUp(uniqueEmail("attacker"));
      await attacker.get("/shops");
      const attackersToken = /name="csrf" value="([0-9a-f]{64})"/.exec((await attacker.get("/shops")).html)![1]!;
      expect((await victim.post("/shops", { name: "Forged", kind: "live" }, { csrf: attackersToken })).status).toBe(403);
      expect((await victim.post("/logout", {}, { csrf: null })).status).toBe(403);
      expect(text((await victim.get("/shops")).html)).not.toContain("Forged");
    });

    test("sign-in and sign-up forms carry tokens too (no login CSRF)", async () => {
      const email = uniqueEmail("login-csrf");
      await DashboardClient.of(stack).signUp(email);
      const client = DashboardClient.of(stack);
      expect((await client.post("/login", { email, password: "correct horse battery" }, { csrf: null })).status).toBe(403);
      expect((await client.post("/signup", { email: uniqueEmail("x"), password: "correct horse battery" }, { csrf: null })).status).toBe(403);
      expect(client.cookies.has("dash_session")).toBe(false);
    });

    test("a token issued before sign-in is void after it (tokens are bound to the session)", async () => {
      const email = uniqueEmail("bound");
      await DashboardClient.of(stack).signUp(email);
      const client = DashboardClient.of(stack);
      const beforeToken = /name="csrf" value="([0-9a-f]{64})"/.exec((await client.get("/login")).html)![1]!;
      await client.post("/login", { email, password: "correct horse battery" });
      expect((await client.post("/shops", { name: "Late", kind: "sandbox" }, { csrf: beforeToken })).status).toBe(403);
    });
  });

  describe("lock-out", () => {
    test("five wrong passwords lock the email: even the right password is refused (429, Retry-After) from any address", async () => {
      const email = uniqueEmail("guessed");
      await DashboardClient.of(stack).signUp(email);
      const guesser = DashboardClient.of(stack, "203.0.113.10");
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await guesser.signIn(email, `guess number ${i}`)).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401]);

      const owner = DashboardClient.of(stack, "203.0.113.11");
      const locked = await owner.signIn(email);
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(text(locked.html)).toContain("Слишком много неудачных попыток");
      expect(owner.cookies.has("dash_session")).toBe(false);
    });

    test("parallel guesses are counted one by one: of ten at once, five are checked and five refused", async () => {
      const email = uniqueEmail("burst");
      await DashboardClient.of(stack).signUp(email);
      const clients = Array.from({ length: 10 }, () => DashboardClient.of(stack, "203.0.113.20"));
      await Promise.all(clients.map((c) => c.get("/login")));
      const answers = await Promise.all(clients.map((c, i) => c.post("/login", { email, password: `parallel guess ${i}` })));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
    });

    test("twenty failures from one address lock that address for every email; other addresses are unaffected", async () => {
      const email = uniqueEmail("sprayed");
      await DashboardClient.of(stack).signUp(email);
      const sprayer = DashboardClient.of(stack, "203.0.113.30");
      for (let i = 0; i < 20; i++) expect((await sprayer.signIn(uniqueEmail(`spray${i}`), "Winter2026!!")).status).toBe(401);
      const fromSprayer = await sprayer.signIn(email);
      expect(fromSprayer.status).toBe(429);
      expect((await DashboardClient.of(stack, "203.0.113.31").signIn(email)).status).toBe(303);
    });

    test("a successful sign-in clears the email's count", async () => {
      const email = uniqueEmail("typo");
      await DashboardClient.of(stack).signUp(email);
      const owner = DashboardClient.of(stack, "203.0.113.40");
      for (let i = 0; i < 4; i++) await owner.signIn(email, "typo typo typo");
      expect((await owner.signIn(email)).status).toBe(303);
      const laterDevice = DashboardClient.of(stack, "203.0.113.40");
      for (let i = 0; i < 4; i++) expect((await laterDevice.signIn(email, "typo typo typo")).status).toBe(401);
      expect((await DashboardClient.of(stack, "203.0.113.41").signIn(email)).status).toBe(303);
    });
  });

  describe("pages", () => {
    test("every page has a strict CSP without inline script, frame-ancestors 'none', nosniff and a referrer policy", async () => {
      const client = DashboardClient.of(stack);
      await client.signUp(uniqueEmail("headers"));
      for (const path of ["/login", "/shops", "/no-such-page"]) {
        const answer = await client.get(path);
        const csp = answer.headers.get("content-security-policy")!;
        expect(csp).toContain("script-src 'self'");
        expect(csp).not.toContain("unsafe-inline");
        expect(csp).toContain("frame-ancestors 'none'");
        expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
        expect(answer.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
        expect(answer.html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      }
      expect((await client.get("/no-such-page")).status).toBe(404);
    });

    test("everything a merchant types is escaped", async () => {
      const client = DashboardClient.of(stack);
      await client.signUp(uniqueEmail("escape"));
      const { shopId } = await client.createShop(`<img src=x onerror=alert(1)>"'&`);
      const card = await client.get(`/shops/${shopId}`);
      expect(card.html).not.toContain("<img src=x");
      expect(card.html).toContain("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;");
    });

    test("a form over the size limit is refused with 413 and a page that says why, in the page's language", async () => {
      const client = DashboardClient.of(stack);
      await client.signUp(uniqueEmail("big-form"));
      const { shopId } = await client.createShop("Big forms");
      await client.get(`/shops/${shopId}`);
      const refused = await client.post(`/shops/${shopId}/settings`, { name: "z".repeat(40_000) });
      expect(refused.status).toBe(413);
      expect(text(refused.html)).toContain("Слишком большая форма. Вернитесь назад и попробуйте снова.");
      await client.get(`/shops/${shopId}?lang=en`);
      expect(text((await client.post(`/shops/${shopId}/settings`, { name: "z".repeat(40_000) })).html)).toContain("The form is too large. Go back and try again.");
    });

    test("Russian by default, English on request, remembered", async () => {
      const client = DashboardClient.of(stack);
      expect((await client.get("/login")).html).toContain('<html lang="ru">');
      const english = await client.get("/login?lang=en");
      expect(english.html).toContain('<html lang="en">');
      expect(text(english.html)).toContain("Sign in");
      expect((await client.get("/login")).html).toContain('<html lang="en">');
    });
  });
});
