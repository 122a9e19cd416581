import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs } from "@payaccept/contracts";
import { pageRoutes } from "../services/dashboard/src/web/app.ts";
import { can, ROUTE_RULES, type Rule } from "../services/dashboard/src/web/access.ts";
import type { WebDeps } from "../services/dashboard/src/web/deps.ts";
import { ACCOUNT_ROLES, type AccountRole } from "../services/dashboard/src/store/schema.ts";
import { createPayment } from "./browser/shop-fixtures.ts";
import { DashboardClient, text, uniqueEmail, type Answer } from "./dashboard-client.ts";
import { Stack } from "./harness/stack.ts";
import { member, MEMBER_PASSWORD, memberId } from "./team-fixtures.ts";

// Real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(300_000);

/**
 * The role × action matrix against a real stack: every route the dashboard registers (read from
 * the app itself, so a new route without a rule fails here), requested by a member of every role,
 * an operator and a signed-out visitor, and each answer checked against the route's rule. The
 * check reads sessions and users the same way on both engines, so this runs on SQLite only; the
 * team's writes run on both (dashboard-team.test.ts).
 */
const ROUTES = pageRoutes({} as WebDeps)
  .routes.filter((r) => r.method !== "ALL")
  .map((r) => `${r.method} ${r.path}`);
/** These end or delete the persona's own sign-in: walked last, each persona signed in again between them. */
const LAST = ["POST /logout", "POST /account/leave"];

type Persona = AccountRole | "operator" | "signedOut";
const PERSONAS: Persona[] = [...ACCOUNT_ROLES, "operator", "signedOut"];

/** What the rule lets this persona do with the route. */
function expected(rule: Rule, persona: Persona): "open" | "signIn" | "forbidden" | "absent" {
  if (rule.who === "anyone") return "open";
  if (persona === "signedOut") return "signIn";
  if (rule.who === "signedIn") return "open";
  if (rule.who === "operator") return persona === "operator" ? "open" : "absent";
  if (persona === "operator") return "absent";
  return can(persona, rule.action) ? "open" : "forbidden";
}

/**
 * What the answer says about the access check, by the refusal's reason (the error page carries it
 * as data-reason): a page past the check may still refuse the empty form or find no such id.
 */
function observed(answer: Answer): "open" | "signIn" | "forbidden" | "absent" | "stale form" {
  if (answer.status === 303 && answer.location?.startsWith("/login?next=")) return "signIn";
  const reason = /data-reason="([A-Z_]+)"/.exec(answer.html)?.[1];
  // The walk's own mistake (a form token of another session), never an answer of the access check.
  if (reason === "CSRF_TOKEN_INVALID") return "stale form";
  if (answer.status === 403 && reason === "ROLE_FORBIDDEN") return "forbidden";
  if (answer.status === 404 && reason === "PAGE_NOT_FOUND") return "absent";
  return "open";
}

describe("every route × every role", () => {
  let stack: Stack;
  const people = new Map<Persona, DashboardClient>();
  const credentials = new Map<Persona, [email: string, password: string]>();
  const params: Record<string, string> = {};

  beforeAll(async () => {
    // The payments the routes name are real; the balance, deliveries and receipts parts render their
    // "not responding" note (or 503) past the access check, which is all the walk looks at.
    stack = await Stack.start({ services: ["directory", "dashboard", "gateway", "payments"], env: { TRUSTED_PROXIES: "127.0.0.1" } });
    const owner = DashboardClient.of(stack);
    const ownerEmail = uniqueEmail("matrix-owner");
    await owner.signUp(ownerEmail);
    credentials.set("owner", [ownerEmail, "correct horse battery"]);
    const shop = await owner.createShop("Matrix shop");
    people.set("owner", owner);
    for (const role of ACCOUNT_ROLES.filter((r) => r !== "owner")) {
      const email = uniqueEmail(`matrix-${role}`);
      people.set(role, await member(owner, email, role));
      credentials.set(role, [email, MEMBER_PASSWORD]);
    }
    const operatorEmail = uniqueEmail("matrix-operator");
    // A password hash takes a while when parallel test files share the cores.
    await stack.call(rpcs.dashboard.createOperator, { email: operatorEmail, password: "operator password 1" }, 30_000);
    credentials.set("operator", [operatorEmail, "operator password 1"]);
    const operator = DashboardClient.of(stack);
    await operator.signIn(operatorEmail, "operator password 1");
    people.set("operator", operator);
    people.set("signedOut", DashboardClient.of(stack));
    // A member the role changes and removals of the walk act on, never one of the personas.
    const target = uniqueEmail("matrix-target");
    await member(owner, target, "viewer");
    Object.assign(params, {
      shopId: shop.shopId,
      paymentId: (await createPayment(stack, shop.apiKey)).id,
      deliveryId: crypto.randomUUID(),
      keyId: crypto.randomUUID(),
      inviteId: crypto.randomUUID(),
      userId: await memberId(owner, target),
    });
  });
  afterAll(() => stack?.stop());

  test("every registered route has a rule, and every rule a route", () => {
    expect(ROUTES.filter((r) => !ROUTE_RULES[r])).toEqual([]);
    expect(Object.keys(ROUTE_RULES).filter((r) => !ROUTES.includes(r))).toEqual([]);
  });

  const request = async (persona: Persona, route: string) => {
    const [method, pattern] = route.split(" ") as [string, string];
    const path = pattern.replace(/:(\w+)/g, (_, name: string) => params[name]!);
    const person = people.get(persona)!;
    if (method === "GET") return person.get(path);
    // A form token of this persona's session: their account page, or the sign-in page when signed out.
    if ((await person.get("/account")).status !== 200) await person.get("/login");
    return person.post(path, {});
  };

  test("each answer is what the route's rule says for the persona: open, sign in first, 403 in the page's language, or no such page", async () => {
    const mismatches: string[] = [];
    const walk = async (route: string) => {
      for (const persona of PERSONAS) {
        const answer = await request(persona, route);
        const [want, got] = [expected(ROUTE_RULES[route]!, persona), observed(answer)];
        if (want !== got) mismatches.push(`${route} as ${persona}: expected ${want}, got ${got} (${answer.status} ${text(answer.html).slice(0, 120)})`);
      }
    };
    for (const route of ROUTES.filter((r) => !LAST.includes(r))) await walk(route);
    for (const route of LAST) {
      for (const [persona, [email, password]] of credentials) expect((await people.get(persona)!.signIn(email, password)).status).toBe(303);
      await walk(route);
    }
    expect(mismatches).toEqual([]);
  });

  test("the 403 page names the role in the page's language", async () => {
    // The walk ended the personas' sessions: the owner (whom leaving could not remove, the last owner) invites anew.
    const [email, password] = credentials.get("owner")!;
    const owner = DashboardClient.of(stack);
    await owner.signIn(email, password);
    const person = await member(owner, uniqueEmail("matrix-support"), "support");
    const ru = await person.get("/balance");
    expect(ru.status).toBe(403);
    expect(text(ru.html)).toContain("Ваша роль — «Поддержка» — не позволяет открыть эту страницу");
    const en = await person.get("/balance?lang=en");
    expect(en.status).toBe(403);
    expect(text(en.html)).toContain("Your role, Support, does not allow this page or action.");
  });
});
