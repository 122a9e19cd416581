import { eq, max } from "drizzle-orm";
import { customIssue, DomainError, itemAmountKopecks, validationFailed, type CashRegisterDocument, type CashRegisterDocumentRequest, type ValidationIssue } from "@payaccept/contracts";
import { sha256Hex } from "@payaccept/platform";
import type { RegisterDb } from "./store/db.ts";
import { documents, type DocumentRow } from "./store/schema.ts";

/** The emulator's one fiscal drive (ФН, 16 digits); a real register reports its own. */
export const FN_NUMBER = "9999078900012345";
/** Receipts for a customer email starting with this are refused by the "tax service" (a sandbox switch). */
export const FAILING_EMAIL_PREFIX = "fail@";

/** A register checks the arithmetic of a receipt before it prints it; every problem at once. */
function sumProblems(req: CashRegisterDocumentRequest): ValidationIssue[] {
  const problems = req.items.flatMap((item, i) =>
    item.amountKopecks === itemAmountKopecks(item.priceKopecks, item.quantity)
      ? []
      : [customIssue(`items.${i}.amountKopecks`, "ITEM_AMOUNT", "must be priceKopecks × quantity rounded to a kopeck")],
  );
  const total = req.items.reduce((s, i) => s + i.amountKopecks, 0);
  if (total !== req.totalKopecks) problems.push(customIssue("totalKopecks", "TOTAL_SUM", `must be the sum of the items (${total})`, { totalKopecks: total }));
  return problems;
}

/**
 * Accepts a document for fiscalisation, idempotently by external id: a repeat with the same body
 * is the first document; another body under the same id is a caller bug and refused.
 */
export function registerDocument(db: RegisterDb, req: CashRegisterDocumentRequest, now: number, delayMs: number): { doc: DocumentRow; created: boolean } {
  const problems = sumProblems(req);
  if (problems.length > 0) throw validationFailed(problems);
  const body = JSON.stringify(req);
  const inserted = db
    .insert(documents)
    .values({ id: Bun.randomUUIDv7(), externalId: req.externalId, operation: req.operation, body, status: "wait", dueAt: now + delayMs, createdAt: now })
    .onConflictDoNothing()
    .returning()
    .get();
  if (inserted) return { doc: inserted, created: true };
  const existing = db.select().from(documents).where(eq(documents.externalId, req.externalId)).get()!;
  if (existing.body !== body) throw new DomainError("DOCUMENT_BODY_MISMATCH");
  return { doc: existing, created: false };
}

export function findDocument(db: RegisterDb, id: string): DocumentRow | undefined {
  return db.select().from(documents).where(eq(documents.id, id)).get();
}

/**
 * Fiscalises a waiting document whose delay has passed (the emulator does it when the document is
 * next read: the caller cannot tell the difference from a register working in the background).
 * One IMMEDIATE transaction, so document numbers stay unique and gapless across readers.
 */
export function settle(db: RegisterDb, doc: DocumentRow, now: number): DocumentRow {
  if (doc.status !== "wait" || doc.dueAt > now) return doc;
  return db.transaction(
    (tx) => {
      const current = tx.select().from(documents).where(eq(documents.id, doc.id)).get()!;
      if (current.status !== "wait") return current;
      const req = JSON.parse(current.body) as CashRegisterDocumentRequest;
      if (req.client.email?.startsWith(FAILING_EMAIL_PREFIX)) {
        return tx.update(documents).set({ status: "fail", error: "ОФД: чек отклонён (тестовый адрес fail@)" }).where(eq(documents.id, doc.id)).returning().get()!;
      }
      const number = (tx.select({ n: max(documents.fiscalDocumentNumber) }).from(documents).get()?.n ?? 0) + 1;
      // ФПД is a 32-bit number derived from the document; here from its content and number.
      const sign = String(Number.parseInt(sha256Hex(`${number}:${current.body}`).slice(0, 8), 16));
      return tx
        .update(documents)
        .set({ status: "done", fiscalDocumentNumber: number, fiscalSign: sign, registeredAt: now })
        .where(eq(documents.id, doc.id))
        .returning()
        .get()!;
    },
    { behavior: "immediate" },
  );
}

export function toWire(doc: DocumentRow): CashRegisterDocument {
  return {
    uuid: doc.id,
    externalId: doc.externalId,
    status: doc.status,
    error: doc.error,
    fiscal:
      doc.status === "done"
        ? { fiscalDocumentNumber: doc.fiscalDocumentNumber!, fiscalSign: doc.fiscalSign!, fnNumber: FN_NUMBER, registeredAt: new Date(doc.registeredAt!).toISOString() }
        : null,
  };
}
