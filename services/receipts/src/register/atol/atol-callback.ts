import { AtolCallback, invalidRequest } from "@payaccept/contracts";
import { applyState, parseExternalId, toDocument, type OutcomeDeps } from "../../outcome.ts";
import type { FiscalRegisterPort } from "../port.ts";

/** What a callback did: for АТОЛ (any 200 will do) and the log line. */
export type CallbackResult = "registered" | "refused" | "retrying" | "unchanged" | "unknown";

export type CallbackDeps = OutcomeDeps & { register: FiscalRegisterPort; onDue: () => void };

/**
 * A document's result posted by АТОЛ to service.callback_url. АТОЛ signs nothing, so the body only
 * says which document to look at: its state is asked of АТОЛ (report, with our token) and applied
 * like a poll's answer (outcome.ts). A forged callback therefore changes nothing a poll would not;
 * a repeated one finds the receipt already moved on; one about an older document of the receipt
 * (refused before) is left alone. A port failure (АТОЛ unreachable) is thrown: the poll remains;
 * a body that is not a callback is VALIDATION_FAILED.
 */
export async function handleAtolCallback(d: CallbackDeps, body: unknown): Promise<{ result: CallbackResult; receiptId?: string; documentId?: string }> {
  const parsed = AtolCallback.safeParse(body);
  if (!parsed.success) throw invalidRequest(parsed.error);
  const documentId = parsed.data.uuid;
  const named = parseExternalId(parsed.data.external_id);
  const row = named && (await d.store.byId(named.id));
  // Sandbox receipts never go to АТОЛ.
  if (!named || !row || row.isTest) return { result: "unknown", documentId };
  const receipt = { receiptId: row.id, documentId };
  if (row.generation !== named.generation || (row.status !== "PENDING" && row.status !== "SENT")) return { result: "unchanged", ...receipt };
  const state = await d.register.state(documentId, toDocument(row));
  const after = await applyState(d, row, state, "callback");
  if (!after) return { result: "unchanged", ...receipt };
  if (after.status === "REGISTERED") return { result: "registered", ...receipt };
  if (after.status === "FAILED") return { result: "refused", ...receipt };
  // Refused, to be retried as a new document: due now or after its backoff, the sender takes it.
  d.onDue();
  return { result: "retrying", ...receipt };
}
