import { failureText, type Failure, type FiscalData, type ReceiptCustomer, type ReceiptItem, type ReceiptKind, type TaxationSystem } from "@payaccept/contracts";

/** One fiscal document as the receipts service hands it to a register. */
export type FiscalDocument = {
  /** The register's idempotency key: the same key never makes a second document. */
  externalId: string;
  kind: ReceiptKind;
  test: boolean;
  customer: ReceiptCustomer;
  taxation: TaxationSystem;
  items: ReceiptItem[];
  totalKopecks: number;
};

/** wait: accepted, being fiscalised. done: fiscalised. fail: refused; this document will never be fiscalised. */
export type RegisterState =
  | { documentId: string; status: "wait" }
  | { documentId: string; status: "done"; fiscal: FiscalData }
  | { documentId: string; status: "fail"; error: string };

/**
 * What the receipts service needs from an online cash register. The HTTP adapter speaks
 * docs/cash-register-emulator.md; a real provider (АТОЛ Онлайн, OrangeData…) gets an adapter of its own.
 */
export interface FiscalRegisterPort {
  /** Registers the document, idempotently by externalId, and answers its current state. */
  register(doc: FiscalDocument): Promise<RegisterState>;
  state(documentId: string): Promise<RegisterState>;
}

/** No usable answer: network, timeout, a non-2xx or a reply that breaks the protocol. Retried until the attempts run out. */
export class RegisterCallFailed extends Error {
  constructor(readonly failure: Failure) {
    super(failureText(failure));
  }
}
