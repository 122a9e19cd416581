import { TOTP } from "otpauth";
import type { AccountRole } from "../services/dashboard/src/store/schema.ts";
import { DashboardClient, text, type Answer } from "./dashboard-client.ts";

/** The password every member made by these fixtures sets. */
export const MEMBER_PASSWORD = "member password 1";

const INVITE_LINK = /https?:\/\/[^\s"<]+\/invite\?token=[A-Za-z0-9_-]{43}/;

/** The invitation link a page (the team page after inviting) or a mail shows. */
export function inviteLinkIn(html: string): string | undefined {
  return INVITE_LINK.exec(html.replace(/&amp;/g, "&"))?.[0];
}

/** The owner (or an admin) invites an address from the team page; returns the link shown once. */
export async function invite(inviter: DashboardClient, email: string, role: AccountRole): Promise<string> {
  const sent = await inviter.submit("/team", "/team/invites", { email, role });
  if (sent.status !== 303) throw new Error(`invitation refused: ${sent.status} ${text(sent.html).slice(0, 400)}`);
  const link = inviteLinkIn((await inviter.follow(sent)).html);
  if (!link) throw new Error("no invitation link on the team page");
  return link;
}

/** Someone opens an invitation link, sets a password and is signed in; returns the accept's answer. */
export async function accept(member: DashboardClient, link: string, password = MEMBER_PASSWORD): Promise<Answer> {
  const { pathname, search } = new URL(link);
  const opened = await member.get(pathname + search);
  if (opened.status !== 200) throw new Error(`invitation page: ${opened.status} ${text(opened.html).slice(0, 400)}`);
  return member.post("/invite", { token: new URL(link).searchParams.get("token")!, password });
}

/** A new member of the inviter's team with `role`, signed in at the dashboard of `base`. */
export async function member(inviter: DashboardClient, email: string, role: AccountRole, base = inviter.base): Promise<DashboardClient> {
  const person = new DashboardClient(base);
  const accepted = await accept(person, await invite(inviter, email, role));
  if (accepted.status !== 303) throw new Error(`invitation not accepted: ${accepted.status} ${text(accepted.html).slice(0, 400)}`);
  return person;
}

/** The id of a member, from the team page's row of their email (its role form). */
export async function memberId(viewer: DashboardClient, email: string): Promise<string> {
  const page = await viewer.get("/team");
  const row = new RegExp(`data-member="${email.replace(/[.+]/g, "\\$&")}"[\\s\\S]*?/team/members/([0-9a-f-]{36})/role`).exec(page.html);
  if (!row) throw new Error(`${email} is not on the team page`);
  return row[1]!;
}

const STEP_MS = 30_000;
/**
 * Until this far into a step a code of the step before is handed out too (accepted as a clock a
 * little behind): the dashboard then checks it within the same step unless its answer takes
 * longer than the rest of the step, 15 s at least.
 */
const PREVIOUS_STEP_UNTIL_MS = 15_000;

/**
 * The app on a phone, for the secret a QR code or the page's key carried. The dashboard takes each
 * time step once (no replay) and accepts one step either side of its clock, so every code handed
 * out is of a step not handed out before: early in a step the one before, else the current one,
 * else the next; when those are spent it waits for the clock, at most one step. Three codes in a
 * row then rarely wait.
 */
export class Authenticator {
  private lastStep = 0;
  readonly totp: TOTP;

  constructor(secret: string) {
    this.totp = new TOTP({ secret, algorithm: "SHA1", digits: 6, period: 30 });
  }

  async code(): Promise<string> {
    const deadline = Date.now() + 3 * STEP_MS;
    while (Date.now() < deadline) {
      const now = Date.now();
      const current = Math.floor(now / STEP_MS);
      const step = Math.max(this.lastStep + 1, now % STEP_MS < PREVIOUS_STEP_UNTIL_MS ? current - 1 : current);
      if (step <= current + 1) {
        this.lastStep = step;
        return this.totp.generate({ timestamp: step * STEP_MS });
      }
      await Bun.sleep((current + 1) * STEP_MS - Date.now() + 50);
    }
    throw new Error("no fresh time step within three periods");
  }

  /** A code the dashboard has taken already (a replay): the last one handed out. */
  replay(): string {
    return this.totp.generate({ timestamp: this.lastStep * STEP_MS });
  }
}

/**
 * Turns on two-factor sign-in from the account page as a person would, with codes computed here;
 * returns the authenticator and the recovery codes shown once.
 */
export async function enrol(person: DashboardClient): Promise<{ app: Authenticator; recoveryCodes: string[] }> {
  const started = await person.submit("/account", "/account/two-factor");
  const page = await person.follow(started);
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec(page.html)?.[1];
  if (!secret) throw new Error(`no enrolment on the account page: ${text(page.html).slice(0, 400)}`);
  const app = new Authenticator(secret);
  const confirmed = await person.post("/account/two-factor/confirm", { code: await app.code() });
  if (confirmed.status !== 303) throw new Error(`enrolment refused: ${confirmed.status} ${text(confirmed.html).slice(0, 400)}`);
  const shown = await person.follow(confirmed);
  const recoveryCodes = [...shown.html.matchAll(/<code>([a-z2-9]{5}-[a-z2-9]{5})<\/code>/g)].map((m) => m[1]!);
  return { app, recoveryCodes };
}
