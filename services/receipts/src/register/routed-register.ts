import type { FiscalDocument, FiscalRegisterPort } from "./port.ts";

/**
 * Live receipts to the live register (АТОЛ), sandbox receipts to the cash register emulator: a
 * sandbox payment's receipt must never become a fiscal document, and АТОЛ has no test flag on a
 * document (its test environment is another account). A document's state is asked of the register
 * that holds it.
 */
export function routedRegister(live: FiscalRegisterPort, sandbox: FiscalRegisterPort): FiscalRegisterPort {
  const of = (doc: FiscalDocument) => (doc.test ? sandbox : live);
  return { register: (doc) => of(doc).register(doc), state: (documentId, doc) => of(doc).state(documentId, doc) };
}
