import { CashRegisterDocument, failure, type CashRegisterDocumentRequest } from "@payaccept/contracts";
import { RegisterCallFailed, type FiscalDocument, type FiscalRegisterPort, type RegisterState } from "./port.ts";
import { callRegister } from "./register-http.ts";

export type CashRegisterHttpOptions = { baseUrl: string; apiKey: string; timeoutMs: number };

function toState(doc: CashRegisterDocument): RegisterState {
  if (doc.status === "done" && doc.fiscal) {
    const f = doc.fiscal;
    return { documentId: doc.uuid, status: "done", fiscal: { documentNumber: f.fiscalDocumentNumber, fiscalSign: f.fiscalSign, driveNumber: f.fnNumber, registeredAt: f.registeredAt } };
  }
  if (doc.status === "fail") {
    // The emulator refuses as the tax service does: another document may be taken.
    return { documentId: doc.uuid, status: "fail", failure: failure("RECEIPT_REFUSED_BY_REGISTER", { detail: doc.error ?? "refused by the register" }), needsPerson: false };
  }
  return { documentId: doc.uuid, status: "wait" };
}

/** The fiscal register port over HTTP (docs/cash-register-emulator.md). */
export function cashRegisterHttp(opts: CashRegisterHttpOptions): FiscalRegisterPort {
  async function call(method: "GET" | "POST", path: string, body?: CashRegisterDocumentRequest): Promise<RegisterState> {
    const res = await callRegister(
      `${opts.baseUrl}${path}`,
      { method, headers: { Authorization: `Bearer ${opts.apiKey}`, "Content-Type": "application/json" }, body: body && JSON.stringify(body) },
      opts.timeoutMs,
    );
    if (res.status < 200 || res.status >= 300) throw new RegisterCallFailed(failure("REGISTER_HTTP_STATUS", { httpStatus: res.status }));
    let json: unknown;
    try {
      json = JSON.parse(res.text);
    } catch {
      json = undefined;
    }
    const parsed = CashRegisterDocument.safeParse(json);
    if (!parsed.success) throw new RegisterCallFailed(failure("REGISTER_BAD_REPLY"));
    return toState(parsed.data);
  }

  return {
    register: (doc: FiscalDocument) =>
      call("POST", "/v1/documents", {
        externalId: doc.externalId,
        operation: doc.kind === "SALE" ? "sell" : "sell_refund",
        test: doc.test,
        client: doc.customer,
        taxation: doc.taxation,
        items: doc.items,
        totalKopecks: doc.totalKopecks,
      }),
    state: (documentId: string) => call("GET", `/v1/documents/${encodeURIComponent(documentId)}`),
  };
}
