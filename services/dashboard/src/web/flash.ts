import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import type { TestWebhookResult } from "@payaccept/contracts";
import type { z } from "zod";
import type { UserStore } from "../store/user-store.ts";

/** What a page shows once, right after the action that produced it (post → redirect → get). */
export type FlashMessage =
  /** A credential shown exactly once; stored only sealed with the session's own token (below). */
  | { kind: "apiKey"; shopId: string; apiKey: string }
  | { kind: "secret"; shopId: string; secret: string; rotated: boolean }
  | { kind: "testWebhook"; shopId: string; result: z.infer<typeof TestWebhookResult>; sentAt: number }
  | { kind: "notice"; text: NoticeKey }
  /** An invitation link, shown once to the inviter (its token opens a sign-in). */
  | { kind: "invite"; email: string; link: string; mail: "sent" | "failed" | "off" }
  /** Recovery codes, shown once when made. */
  | { kind: "recoveryCodes"; codes: string[] }
  | { kind: "recoveryCodeUsed"; left: number }
  /** Details saved: until when payouts wait (a new payout account), how many owners were mailed. */
  | { kind: "detailsSaved"; heldUntil: number | null; mailed: number }
  /** An exchange file made by an operator (or none, all waiting). */
  | { kind: "payoutFile"; batchId: string | null; orders: number; totalKopecks: number; waiting: number };

export type NoticeKey =
  | "shopCreated"
  | "saved"
  | "resent"
  | "refunded"
  | "canceled"
  | "payoutDone"
  | "scheduleSaved"
  | "activityChanged"
  | "methodsSaved"
  | "tariffSaved"
  | "connectorsSaved"
  | "roleChanged"
  | "memberRemoved"
  | "inviteRevoked"
  | "teamSettingsSaved"
  | "twoFactorEnabled"
  | "twoFactorDisabled"
  | "recoveryCodesMade"
  | "keyOverlapEnded"
  | "secretOverlapEnded"
  | "captured"
  | "voided"
  | "revokedNotice";

/** The session a message belongs to: its stored id (the token's hash) and the cookie's token. */
export type FlashSession = { sessionId: string; token: string };

const TTL_MS = 5 * 60_000;

/**
 * One pending message per session, in the store (so the redirect may land on any replica), for
 * the page the action redirects to: the next page the session opens takes it (another page just
 * drops it), so a reload never shows a key again. A message not collected within five minutes is
 * dropped. The body is sealed (AES-256-GCM) with a key derived from the session's cookie token,
 * which the store never holds: a copy of the database does not reveal a key shown a moment ago.
 */
export class Flash {
  constructor(
    private readonly store: Pick<UserStore, "putFlash" | "takeFlash">,
    private readonly now: () => number,
  ) {}

  put(session: FlashSession, path: string, message: FlashMessage): Promise<void> {
    const now = this.now();
    return this.store.putFlash({ sessionIdHash: session.sessionId, path, sealed: seal(session.token, JSON.stringify(message)), expiresAt: now + TTL_MS }, now);
  }

  async take(session: FlashSession, path: string): Promise<FlashMessage | undefined> {
    const row = await this.store.takeFlash(session.sessionId);
    if (!row || row.path !== path || row.expiresAt <= this.now()) return undefined;
    return JSON.parse(unseal(session.token, row.sealed)) as FlashMessage;
  }
}

const keyOf = (token: string) => createHmac("sha256", token).update("dashboard flash").digest();

function seal(token: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyOf(token), iv);
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString("base64url")).join(".");
}

function unseal(token: string, sealed: string): string {
  const [iv, tag, body] = sealed.split(".").map((part) => Buffer.from(part, "base64url"));
  const decipher = createDecipheriv("aes-256-gcm", keyOf(token), iv!);
  decipher.setAuthTag(tag!);
  return Buffer.concat([decipher.update(body!), decipher.final()]).toString("utf8");
}
