import { DomainError } from "@payaccept/contracts";
import { Ticker, type Logger } from "@payaccept/platform";
import { writeCallback } from "./callbacks/write.ts";
import { findSession } from "./sessions.ts";
import { inTransaction, type AcquirerDb, type AcquirerTx } from "./store/db.ts";
import type { SessionRow } from "./store/schema.ts";
import { statements } from "./store/statements.ts";

/**
 * Two-stage card payments (docs/acquirer-emulator.md, "Holds"): an AUTHORIZED session holds its
 * amount until it is captured (all or part; the rest is released), voided, or the acquirer's own
 * deadline passes and it voids the hold itself. Each change writes its callback in its transaction.
 */

const iso = (ms: number) => new Date(ms).toISOString();

function release(tx: AcquirerTx, row: SessionRow, reason: "voided_by_merchant" | "hold_expired", now: number): SessionRow {
  const session = statements(tx).updateSession(row.id, { status: "VOIDED", declineReason: reason });
  writeCallback(tx, session, { event: "VOIDED", reason }, now);
  return session;
}

const deadlinePassed = (row: SessionRow, now: number) => row.status === "AUTHORIZED" && row.holdExpiresAt !== null && now >= row.holdExpiresAt;

/**
 * Runs a hold operation on the session as it is once a hold past its deadline has been voided
 * (committed even when the operation then refuses: the deadline's void is a fact of its own).
 */
function onHold<T>(db: AcquirerDb, id: string, now: number, op: (tx: AcquirerTx, row: SessionRow) => T): T {
  const result = inTransaction(
    db,
    (tx): { ok: T } | { refused: DomainError } => {
      let row = findSession(tx, id);
      if (!row) return { refused: new DomainError("SESSION_NOT_FOUND") };
      if (!row.hold) return { refused: new DomainError("SESSION_NOT_HELD") };
      if (deadlinePassed(row, now)) row = release(tx, row, "hold_expired", now);
      try {
        return { ok: op(tx, row) };
      } catch (e) {
        if (e instanceof DomainError) return { refused: e };
        throw e;
      }
    },
  );
  if ("refused" in result) throw result.refused;
  return result.ok;
}

/** Why nothing can be done with a hold that is not AUTHORIZED (captured, voided or not paid yet). */
function notHeld(row: SessionRow): DomainError {
  if (row.status === "PAID") return new DomainError("HOLD_ALREADY_CAPTURED", { capturedKopecks: row.capturedKopecks! });
  if (row.status === "VOIDED") return new DomainError("HOLD_VOIDED", { detail: row.declineReason ?? "voided" });
  return new DomainError("HOLD_NOT_AUTHORIZED", { status: row.status });
}

/**
 * Captures all of a hold (amountKopecks absent) or part of it, releasing the rest. Idempotent: a
 * repeat after the capture answers the captured session, unless it asks for another amount.
 */
export function captureHold(db: AcquirerDb, id: string, amountKopecks: number | undefined, now: number): SessionRow {
  return onHold(db, id, now, (tx, row) => {
    if (row.status === "PAID" && (amountKopecks === undefined || amountKopecks === row.capturedKopecks)) return row;
    if (row.status !== "AUTHORIZED") throw notHeld(row);
    const captured = amountKopecks ?? row.amountKopecks;
    if (captured > row.amountKopecks) throw new DomainError("CAPTURE_EXCEEDS_HOLD", { heldKopecks: row.amountKopecks });
    const session = statements(tx).updateSession(id, { status: "PAID", paidAt: now, capturedKopecks: captured });
    writeCallback(tx, session, { event: "CAPTURED", amountKopecks: captured, paidAt: iso(now) }, now);
    return session;
  });
}

/** Releases a hold. Idempotent: a voided hold (by the merchant or by its deadline) answers as it is. */
export function voidHold(db: AcquirerDb, id: string, now: number): SessionRow {
  return onHold(db, id, now, (tx, row) => {
    if (row.status === "VOIDED") return row;
    if (row.status !== "AUTHORIZED") throw notHeld(row);
    return release(tx, row, "voided_by_merchant", now);
  });
}

/** Voids the holds whose deadline passed, a batch at a time; returns how many. */
export function expireDueHolds(db: AcquirerDb, now: number, limit: number): number {
  const due = statements(db).dueHolds(now, limit);
  let voided = 0;
  for (const row of due) {
    inTransaction(
      db,
      (tx) => {
        const current = findSession(tx, row.id);
        if (current && deadlinePassed(current, now)) {
          release(tx, current, "hold_expired", now);
          voided++;
        }
      },
    );
  }
  return voided;
}

/** How often the acquirer looks for holds past its deadline. */
const SWEEP_EVERY_MS = 1000;
const BATCH = 64;

/** The acquirer's own deadline of holds: voids each one that passes it, with its VOIDED callback. */
export function holdSweeper(deps: { db: AcquirerDb; log: Logger; onVoided: () => void }): Ticker {
  return new Ticker(
    async () => {
      let voided = 0;
      let batch: number;
      do {
        batch = expireDueHolds(deps.db, Date.now(), BATCH);
        voided += batch;
      } while (batch === BATCH);
      if (voided === 0) return;
      deps.log.info({ voided }, "holds voided at the acquirer's deadline");
      deps.onVoided();
    },
    SWEEP_EVERY_MS,
    (err) => deps.log.error({ err }, "hold sweep failed; the next tick retries"),
  );
}
