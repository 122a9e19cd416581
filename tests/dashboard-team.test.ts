import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rpcs, type AuditAction, type AuditEvent } from "@payaccept/contracts";
import { DashboardClient, text, uniqueEmail } from "./dashboard-client.ts";
import { ENGINES } from "./harness/engines.ts";
import { startSmtpSink, type SmtpSink } from "./harness/smtp-sink.ts";
import { eventually, Stack, TEST_CSRF_SECRET } from "./harness/stack.ts";
import { accept, enrol, invite, inviteLinkIn, member, MEMBER_PASSWORD, memberId } from "./team-fixtures.ts";

// Real processes; bunfig's [test] timeout is not applied by this Bun.
setDefaultTimeout(120_000);

const OWNER_PASSWORD = "correct horse battery";

/**
 * An account's team over HTTP, on two dashboard replicas sharing one store (SQLite file or
 * PostgreSQL), with invitations mailed to a real SMTP server: invitations, roles, the last owner,
 * sessions ended on every replica, two-factor sign-in and a team that requires it. Every case
 * writes the team's rows, so all run on both engines.
 */
describe.each(ENGINES)("a merchant's team on %s", (engine) => {
  let stack: Stack;
  let smtp: SmtpSink;
  /** The two replicas' addresses. */
  let a: string;
  let b: string;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    stack = await Stack.start({
      services: ["directory", "dashboard"],
      env: { TRUSTED_PROXIES: "127.0.0.1", DASHBOARD_REPLICAS: "2", DASHBOARD_CSRF_SECRET: TEST_CSRF_SECRET, SMTP_URL: smtp.url },
      postgres: engine === "postgres",
    });
    a = stack.url("dashboard");
    b = (await stack.addReplica("dashboard")).url;
  });
  afterAll(async () => {
    await stack?.stop();
    await smtp?.stop();
  });

  /** A new account's owner, signed up on replica A. */
  async function newOwner(label: string): Promise<{ owner: DashboardClient; email: string }> {
    const owner = new DashboardClient(a);
    const email = uniqueEmail(label);
    expect((await owner.signUp(email, OWNER_PASSWORD)).status).toBe(303);
    return { owner, email };
  }

  test("an invitation is mailed and shown once, opens once, and its member sees what the role allows", async () => {
    const { owner } = await newOwner("team-owner");
    const { shopId } = await owner.createShop("Team shop");
    const accountant = uniqueEmail("accountant");
    const sent = await owner.submit("/team", "/team/invites", { email: accountant, role: "accountant" });
    expect(sent.status).toBe(303);
    const shown = await owner.follow(sent);
    const link = inviteLinkIn(shown.html)!;
    expect(text(shown.html)).toContain("Письмо с этой ссылкой отправлено.");
    // The mail carries the same link, in Russian and English; the page shows it once.
    const mail = await smtp.mailTo(accountant);
    expect(mail.subject).toContain("Приглашение в кабинет payaccept");
    expect(inviteLinkIn(mail.text ?? "")).toBe(link);
    expect(mail.text).toContain("с ролью «Бухгалтер»");
    expect(inviteLinkIn((await owner.get("/team")).html)).toBeUndefined();
    expect(text((await owner.get("/team")).html)).toContain(accountant);
    // Only its hash is stored.
    const token = new URL(link).searchParams.get("token")!;
    expect(await stack.storedText("dashboard", "dashboard.db")).not.toContain(token);

    // Accepted on the other replica; the link is used up.
    const person = new DashboardClient(b);
    const accepted = await accept(person, link);
    expect(accepted.location).toBe("/overview");
    const again = await new DashboardClient(a).get(new URL(link).pathname + new URL(link).search);
    expect(again.status).toBe(404);
    expect(text(again.html)).toContain("Приглашение недействительно");

    expect((await person.get("/overview")).status).toBe(200);
    expect((await person.get("/balance")).status).toBe(200);
    const card = await person.get(`/shops/${shopId}`);
    expect(card.status).toBe(200);
    expect(text(card.html)).not.toContain("Выпустить");
    expect(card.html).not.toContain(`/shops/${shopId}/webhook"`);
    const team = await person.get("/team");
    expect(team.status).toBe(403);
    expect(text(team.html)).toContain("Ваша роль — «Бухгалтер»");
    expect((await person.post(`/shops/${shopId}/key`)).status).toBe(403);
    expect(text((await owner.get("/team")).html)).toMatch(new RegExp(`${accountant.replace(/[.+]/g, "\\$&")} Бухгалтер`));
  });

  test("a role change or a removal ends the member's sessions at once, on every replica", async () => {
    const { owner } = await newOwner("team-sessions");
    const email = uniqueEmail("developer");
    const onA = await member(owner, email, "developer", a);
    const onB = new DashboardClient(b);
    expect((await onB.signIn(email, MEMBER_PASSWORD)).status).toBe(303);
    for (const session of [onA, onB]) expect((await session.get("/shops")).status).toBe(200);

    const id = await memberId(owner, email);
    const changed = await owner.submit("/team", `/team/members/${id}/role`, { role: "support" });
    expect(changed.status).toBe(303);
    for (const session of [onA, onB]) expect((await session.get("/shops")).location).toBe("/login?next=%2Fshops");
    // Signed in again, the new role holds.
    expect((await onA.signIn(email, MEMBER_PASSWORD)).status).toBe(303);
    expect((await onA.get("/account")).html).toContain('data-role="support"');
    expect((await onA.get("/balance")).status).toBe(403);

    const removed = await owner.submit("/team", `/team/members/${id}/remove`);
    expect(removed.status).toBe(303);
    expect(text((await owner.follow(removed)).html)).toContain("Участник удалён");
    expect((await onA.get("/shops")).location).toBe("/login?next=%2Fshops");
    expect((await new DashboardClient(b).signIn(email, MEMBER_PASSWORD)).status).toBe(401);
  });

  test("the last owner can neither leave nor be demoted; an admin cannot touch an owner; a second owner lets the first leave", async () => {
    const { owner, email } = await newOwner("team-last-owner");
    const selfId = await memberId(owner, email);
    const leave = await owner.submit("/account", "/account/leave");
    expect(leave.status).toBe(409);
    expect(text(leave.html)).toContain("Последний владелец не может уйти из команды");
    const demote = await owner.submit("/team", `/team/members/${selfId}/role`, { role: "admin" });
    expect(demote.status).toBe(409);

    const adminEmail = uniqueEmail("admin");
    const admin = await member(owner, adminEmail, "admin");
    const touched = await admin.submit("/team", `/team/members/${selfId}/role`, { role: "viewer" });
    expect(touched.status).toBe(409);
    expect(text(touched.html)).toContain("Назначать, менять и снимать роль владельца может только владелец.");
    const ownerInvite = await admin.submit("/team", "/team/invites", { email: uniqueEmail("would-be-owner"), role: "owner" });
    expect(ownerInvite.status).toBe(400);
    // The admin's own page offers no owner role.
    expect((await admin.get("/team")).html).not.toContain('value="owner"');

    const promoted = await owner.submit("/team", `/team/members/${await memberId(owner, adminEmail)}/role`, { role: "owner" });
    expect(promoted.status).toBe(303);
    // The promoted admin's sessions ended with the change; as an owner they sign in again.
    expect((await admin.signIn(adminEmail, MEMBER_PASSWORD)).status).toBe(303);
    const left = await owner.submit("/account", "/account/leave");
    expect(left.location).toBe("/login");
    expect((await new DashboardClient(a).signIn(email, OWNER_PASSWORD)).status).toBe(401);
    expect(text((await admin.get("/team")).html)).not.toContain(email);
  });

  test("two-factor sign-in: the code after the password, a replayed code refused, a recovery code once, attempts throttled", async () => {
    const { owner, email } = await newOwner("team-2fa");
    const { app, recoveryCodes } = await enrol(owner);
    expect(recoveryCodes).toHaveLength(10);
    expect(text((await owner.get("/account")).html)).toContain("Неиспользованных резервных кодов: 10.");

    const person = new DashboardClient(b);
    const password = await person.signIn(email, OWNER_PASSWORD, "/shops");
    expect(password.location).toBe("/login/code?next=%2Fshops");
    // Halfway is not signed in.
    expect((await person.get("/overview")).location).toBe("/login?next=%2Foverview");
    await person.get("/login/code");
    expect((await person.post("/login/code", { code: "000000", next: "/shops" })).status).toBe(401);
    const code = await app.code();
    const signedIn = await person.post("/login/code", { code, next: "/shops" });
    expect(signedIn.location).toBe("/shops");
    expect((await person.get("/shops")).status).toBe(200);

    // The same code again, at once, on the other replica: refused.
    const replay = new DashboardClient(a);
    await replay.signIn(email, OWNER_PASSWORD);
    await replay.get("/login/code");
    const replayed = await replay.post("/login/code", { code });
    expect(replayed.status).toBe(401);
    expect(text(replayed.html)).toContain("Неверный код или он уже использован.");

    const recovery = await replay.post("/login/code", { code: recoveryCodes[0]!.toUpperCase() });
    expect(recovery.location).toBe("/account");
    expect(text((await replay.follow(recovery)).html)).toContain("Вы вошли по резервному коду; осталось 9.");
    const spent = new DashboardClient(b);
    await spent.signIn(email, OWNER_PASSWORD);
    await spent.get("/login/code");
    expect((await spent.post("/login/code", { code: recoveryCodes[0]! })).status).toBe(401);

    // Five wrong codes in all lock the second factor: even a right one is refused for now.
    for (let i = 0; i < 4; i++) expect((await spent.post("/login/code", { code: `12345${i}` })).status).toBe(401);
    const locked = await spent.post("/login/code", { code: await app.code() });
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).toBeTruthy();

    // App and codes lost: the platform resets the factor (admin CLI); every session ends, the password alone signs in.
    const reset = await stack.admin(["user:reset-two-factor", "--email", email.toUpperCase(), "--json"]);
    expect(reset.code).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({ email });
    expect((await person.get("/shops")).location).toBe("/login?next=%2Fshops");
    expect((await new DashboardClient(a).signIn(email, OWNER_PASSWORD)).location).toBe("/overview");
    expect(JSON.parse((await stack.admin(["user:reset-two-factor", "--email", "nobody@example.com", "--json"])).stdout)).toMatchObject({ error: { code: "NOT_FOUND" } });
  });

  test("a team that requires two-factor sign-in sends a member without it to enrol before anything else", async () => {
    const { owner } = await newOwner("team-require");
    const viewerEmail = uniqueEmail("viewer");
    const viewer = await member(owner, viewerEmail, "viewer");
    const refused = await owner.submit("/team", "/team/settings", { requireTwoFactor: "on" });
    expect(refused.status).toBe(409);
    expect(text(refused.html)).toContain("Сначала включите двухфакторный вход для себя.");

    await enrol(owner);
    const required = await owner.submit("/team", "/team/settings", { requireTwoFactor: "on" });
    expect(required.status).toBe(303);
    expect(text((await owner.follow(required)).html)).toContain("Настройки команды сохранены.");

    expect((await viewer.get("/shops")).location).toBe("/account#two-factor");
    const account = await viewer.get("/account");
    expect(account.status).toBe(200);
    expect(text(account.html)).toContain("В вашей команде двухфакторный вход обязателен");
    await enrol(viewer);
    expect((await viewer.get("/shops")).status).toBe(200);
    const off = await viewer.submit("/account", "/account/two-factor/disable");
    expect(off.status).toBe(409);
    expect(text(off.html)).toContain("двухфакторный вход обязателен: отключить его нельзя");
  });

  test("the team's security facts are in the audit log with who, in which role, from where, before and after; the page shows them to owners and admins", async () => {
    const { owner, email } = await newOwner("team-audit");
    const ownerId = await memberId(owner, email);
    const { shopId } = await owner.createShop("Audited shop");
    const { accountId } = (await stack.call(rpcs.directory.getShop, { shopId })).shop;
    const devEmail = uniqueEmail("audit-dev");
    await member(owner, devEmail, "developer", b);
    const devId = await memberId(owner, devEmail);
    expect((await new DashboardClient(a).signIn(devEmail, MEMBER_PASSWORD)).location).toBe("/overview");
    const withdrawn = uniqueEmail("audit-withdrawn");
    await invite(owner, withdrawn, "viewer");
    const inviteId = /\/team\/invites\/([0-9a-f-]{36})\/revoke/.exec((await owner.get("/team")).html)![1]!;
    expect((await owner.submit("/team", `/team/invites/${inviteId}/revoke`)).status).toBe(303);
    expect((await owner.submit("/team", `/team/members/${devId}/role`, { role: "support" })).status).toBe(303);
    await enrol(owner);
    expect((await owner.submit("/team", "/team/settings", { requireTwoFactor: "on" })).status).toBe(303);
    // Five wrong passwords: five failures, and the fifth locks the email.
    const guesser = new DashboardClient(a, "203.0.113.66");
    for (let i = 0; i < 5; i++) expect((await guesser.signIn(devEmail, `wrong password ${i}`)).status).toBe(401);
    expect((await owner.submit("/team", `/team/members/${devId}/remove`)).status).toBe(303);
    expect((await stack.admin(["user:reset-two-factor", "--email", email, "--json"])).code).toBe(0);

    // Each through the directory's audit RPC, on this engine's store.
    const log = async () => (await stack.call(rpcs.directory.auditLog, { accountId, limit: 200 })).items;
    const wanted: AuditAction[] = ["member.signed_in", "member.invited", "member.joined", "member.invite_revoked", "member.role_changed", "two_factor.enabled", "two_factor.required_changed", "member.sign_in_failed", "member.sign_in_locked", "member.removed", "two_factor.reset"];
    const entries = await eventually(async () => {
      const got = await log();
      return wanted.every((action) => got.some((e) => e.action === action)) && got;
    }, 30_000, 200);
    const one = (action: AuditAction, target?: string): AuditEvent => {
      const found = entries.filter((e) => e.action === action && (!target || e.target?.id === target));
      expect({ action, count: found.length }).toEqual({ action, count: 1 });
      return found[0]!;
    };
    const ownerActor = { kind: "member", id: ownerId, label: email, role: "owner", ip: expect.stringMatching(/^198\.51\.100\./), userAgent: expect.any(String) };
    expect(one("member.invited", inviteId)).toMatchObject({ actor: ownerActor, after: { email: withdrawn, role: "viewer" } });
    expect(one("member.invite_revoked", inviteId)).toMatchObject({ actor: ownerActor, before: { email: withdrawn, role: "viewer" } });
    expect(one("member.joined", devId)).toMatchObject({ actor: { kind: "member", id: devId, label: devEmail, role: "developer" }, after: { invitedBy: email } });
    expect(one("member.role_changed", devId)).toMatchObject({ actor: ownerActor, before: { email: devEmail, role: "developer" }, after: { role: "support" } });
    expect(one("two_factor.enabled", ownerId)).toMatchObject({ actor: ownerActor });
    expect(one("two_factor.required_changed")).toMatchObject({ actor: ownerActor, before: { required: false }, after: { required: true } });
    const guessed = entries.filter((e) => e.action === "member.sign_in_failed" && e.actor.ip === "203.0.113.66");
    expect(guessed).toHaveLength(5);
    for (const failed of guessed) expect(failed).toMatchObject({ actor: { kind: "member", id: devId, label: devEmail }, after: { factor: "password" } });
    expect(one("member.sign_in_locked")).toMatchObject({ actor: { kind: "member", id: devId, label: devEmail, role: "support", ip: "203.0.113.66" }, after: { factor: "password" } });
    expect(one("member.removed", devId)).toMatchObject({ actor: ownerActor, before: { email: devEmail, role: "support" } });
    expect(one("two_factor.reset", ownerId)).toMatchObject({ actor: { kind: "cli", label: expect.stringContaining("@") }, after: { twoFactor: false } });
    expect(entries.some((e) => e.action === "member.signed_in" && e.actor.id === devId)).toBe(true);

    // The page: owners and admins. The CLI's reset ended the owner's sessions: they sign in again
    // and, as the team requires it, enrol again first.
    const again = new DashboardClient(a);
    expect((await again.signIn(email, OWNER_PASSWORD)).location).toBe("/overview");
    await enrol(again);
    const page = await again.get("/audit?action=member.role_changed");
    expect(page.status).toBe(200);
    expect(text(page.html)).toContain("Роль изменена");
    expect(text(page.html)).toContain(`${email} (Владелец)`);
    expect(text(page.html)).not.toContain("Сотрудник удалён —");
    const csv = await again.get("/audit.csv");
    expect(csv.html.split("\n")[0]).toContain("actorRole");
    expect(csv.html).toContain("member.sign_in_locked");
    const viewer = await member(again, uniqueEmail("audit-viewer"), "viewer");
    await enrol(viewer);
    expect((await viewer.get("/audit")).status).toBe(403);
  });
});
