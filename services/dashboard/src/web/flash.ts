import type { TestWebhookResult } from "@payaccept/contracts";
import type { z } from "zod";

/** What a page shows once, right after the action that produced it (post → redirect → get). */
export type FlashMessage =
  /** A credential shown exactly once; only ever held in this process's memory, never stored. */
  | { kind: "apiKey"; shopId: string; apiKey: string }
  | { kind: "secret"; shopId: string; secret: string; rotated: boolean }
  | { kind: "testWebhook"; shopId: string; result: z.infer<typeof TestWebhookResult>; sentAt: number }
  | { kind: "notice"; text: NoticeKey };

export type NoticeKey = "shopCreated" | "saved" | "resent" | "refunded" | "canceled" | "payoutDone" | "activityChanged" | "methodsSaved" | "tariffSaved";

const TTL_MS = 5 * 60_000;

/**
 * One pending message per session, in memory, for the page the action redirects to: the next
 * page the session opens takes it (another page just drops it), so a reload never shows a key
 * again. A message not collected within five minutes is dropped. The dashboard runs as one
 * replica (docs/operations.md, "Replicas"), so the redirect lands on the process that stored it.
 */
export class Flash {
  private readonly slots = new Map<string, { path: string; message: FlashMessage; expiresAt: number }>();

  constructor(private readonly now: () => number) {}

  put(sessionId: string, path: string, message: FlashMessage): void {
    const now = this.now();
    for (const [id, slot] of this.slots) if (slot.expiresAt <= now) this.slots.delete(id);
    this.slots.set(sessionId, { path, message, expiresAt: now + TTL_MS });
  }

  take(sessionId: string, path: string): FlashMessage | undefined {
    const slot = this.slots.get(sessionId);
    this.slots.delete(sessionId);
    return slot && slot.path === path && slot.expiresAt > this.now() ? slot.message : undefined;
  }
}
