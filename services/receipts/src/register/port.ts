import { failureText, type Failure, type FiscalData, type ReceiptCustomer, type ReceiptItem, type ReceiptKind, type TaxationSystem } from "@payaccept/contracts";

/** One fiscal document as the receipts service hands it to a register. */
export type FiscalDocument = {
  /** The register's idempotency key: the same key never makes a second document. */
  externalId: string;
  kind: ReceiptKind;
  test: boolean;
  /** Whose sale it is: a register configured per shop is chosen by it (docs/receipts.md, "Whose receipt it is"). */
  shopId: string;
  customer: ReceiptCustomer;
  taxation: TaxationSystem;
  items: ReceiptItem[];
  totalKopecks: number;
};

/**
 * wait: accepted, being fiscalised; `checkAfterMs`: the register reports back by itself, so the
 * first look at the document waits at least that long. done: fiscalised. fail: this document will
 * never be fiscalised (`documentId` null when the register did not even take it); `needsPerson`:
 * another document with the same data would be refused the same way, so the receipt is FAILED at
 * once instead of spending its attempts.
 */
export type RegisterState =
  | { documentId: string; status: "wait"; checkAfterMs?: number }
  | { documentId: string; status: "done"; fiscal: FiscalData }
  | { documentId: string | null; status: "fail"; failure: Failure; needsPerson: boolean };

/**
 * What the receipts service needs from an online cash register. Adapters: the cash register
 * emulator's HTTP protocol (cash-register-http.ts), АТОЛ Онлайн v5 (atol/), and the router that
 * sends sandbox receipts to the emulator and the rest to АТОЛ (routed-register.ts).
 */
export interface FiscalRegisterPort {
  /** Registers the document, idempotently by externalId, and answers its current state. */
  register(doc: FiscalDocument): Promise<RegisterState>;
  /** The state of a document the register took: `documentId` is its id there, `doc` what it was. */
  state(documentId: string, doc: FiscalDocument): Promise<RegisterState>;
}

/** No usable answer: network, timeout, a non-2xx or a reply that breaks the protocol. Retried until the attempts run out. */
export class RegisterCallFailed extends Error {
  constructor(readonly failure: Failure) {
    super(failureText(failure));
  }
}
