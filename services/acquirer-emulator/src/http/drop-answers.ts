import { z } from "zod";

/**
 * The test knob that loses answers (docs/acquirer-emulator.md, "Lost answers"): the acquirer
 * commits what was asked and then closes the connection without a byte of the answer, as when a
 * network drops it. Armed per operation for the next N answers; kept in memory only.
 */
export const DROPPABLE_OPERATIONS = ["charge", "capture", "void", "refund"] as const;
export type DroppableOperation = (typeof DROPPABLE_OPERATIONS)[number];

export const DropAnswersRequest = z.object({ operation: z.enum(DROPPABLE_OPERATIONS), count: z.number().int().min(0).max(100) });

export class DropAnswers {
  private readonly armed = new Map<DroppableOperation, number>();

  arm(operation: DroppableOperation, count: number): void {
    this.armed.set(operation, count);
  }

  /** Whether this answer is to be lost; counts it down. */
  take(operation: DroppableOperation): boolean {
    const left = this.armed.get(operation) ?? 0;
    if (left === 0) return false;
    this.armed.set(operation, left - 1);
    return true;
  }
}

/** A response that never arrives: its body fails before the status line is written, so Bun closes the connection. */
export const lostAnswer = (): Response =>
  new Response(
    new ReadableStream({
      start(controller) {
        controller.error();
      },
    }),
  );
