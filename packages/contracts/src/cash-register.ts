import { z } from "zod";
import { IsoDateTime } from "./primitives.ts";
import { ReceiptCustomer, ReceiptItem, TaxationSystem } from "./receipts.ts";

/**
 * Wire shapes of the online cash register protocol between the receipts service (its
 * FiscalRegisterPort) and a register; the cash-register emulator is the server
 * (docs/cash-register-emulator.md). Shaped like АТОЛ Онлайн / OrangeData: a document is registered
 * under the caller's external id and fiscalised asynchronously; the caller asks for its state.
 */

export const DEV_CASH_REGISTER_API_KEY = "dev-cash-register-api-key";

/** Tag 1054: sell = приход, sell_refund = возврат прихода. */
export const CashRegisterOperation = z.enum(["sell", "sell_refund"]);
export type CashRegisterOperation = z.infer<typeof CashRegisterOperation>;

/** POST /v1/documents. Idempotent by externalId: a repeat returns the first document. */
export const CashRegisterDocumentRequest = z.object({
  externalId: z.string().min(1).max(128),
  operation: CashRegisterOperation,
  /** A sandbox payment's receipt: a real register's adapter sends it to the register's test mode. */
  test: z.boolean(),
  client: ReceiptCustomer,
  /** Tag 1055. */
  taxation: TaxationSystem,
  items: z.array(ReceiptItem).min(1).max(100),
  /** Tag 1020, all of it paid electronically (tag 1081). */
  totalKopecks: z.number().int().min(0),
});
export type CashRegisterDocumentRequest = z.infer<typeof CashRegisterDocumentRequest>;

export const CashRegisterDocument = z.object({
  uuid: z.string(),
  externalId: z.string(),
  /** wait: accepted, not yet fiscalised; done: fiscalised; fail: refused (a new document is needed). */
  status: z.enum(["wait", "done", "fail"]),
  error: z.string().nullable(),
  fiscal: z
    .object({
      /** ФД, tag 1040. */
      fiscalDocumentNumber: z.number().int(),
      /** ФП/ФПД, tag 1077. */
      fiscalSign: z.string(),
      /** ФН, tag 1041. */
      fnNumber: z.string(),
      registeredAt: IsoDateTime,
    })
    .nullable(),
});
export type CashRegisterDocument = z.infer<typeof CashRegisterDocument>;

/** POST /v1/sandbox: the emulator's test switch. */
export const CashRegisterSandbox = z.object({
  /** down: every document request is answered 503 (the register is unreachable). */
  mode: z.enum(["normal", "down"]),
  /** How long a new document stays in wait before it is fiscalised. */
  delayMs: z.number().int().min(0).max(3_600_000),
});
export type CashRegisterSandbox = z.infer<typeof CashRegisterSandbox>;
