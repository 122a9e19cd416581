import { failure, type AtolError, type Failure } from "@payaccept/contracts";

/**
 * АТОЛ Онлайн's errors and what each means for a receipt (docs/receipts.md, "АТОЛ's errors"), from
 * the table of service errors of its protocol description (v4/v5, section "Ошибки сервиса") and its
 * error types. Decided on the code and the type, never on the text.
 *
 * - retry: another attempt may succeed (АТОЛ's side, a document not processed in time);
 * - needs-person: another attempt with the same data and configuration would be refused the same
 *   way (credentials, the group, the receipt's data): the receipt is FAILED at once;
 * - token: the token is missing or expired: a new one is obtained and the call made again;
 * - exists: a document with this external_id is there already: its state is the answer;
 * - wait: not processed yet;
 * - unknown-document: the report's uuid is unknown: the document is registered again under the same external_id.
 */
export type AtolErrorClass = "retry" | "needs-person" | "token" | "exists" | "wait" | "unknown-document";

/** Replies to getToken, sell/sell_refund and report, by error code. */
export const SERVICE_ERRORS: Readonly<Record<number, { name: string; is: AtolErrorClass }>> = {
  0: { name: "Undefined", is: "retry" },
  1: { name: "IncomingChequeProcessingFailed", is: "retry" },
  10: { name: "MissingToken", is: "token" },
  11: { name: "ExpiredToken", is: "token" },
  12: { name: "WrongLoginOrPassword", is: "needs-person" },
  13: { name: "ValidationException", is: "needs-person" },
  14: { name: "UserBlocked", is: "needs-person" },
  20: { name: "GroupCodeAndTokenDontMatch", is: "needs-person" },
  21: { name: "NotSupportedGroupCodeForProtocol", is: "needs-person" },
  30: { name: "MissingUuid", is: "unknown-document" },
  31: { name: "IncomingOperationNotSupported", is: "needs-person" },
  32: { name: "IncomingValidationException", is: "needs-person" },
  33: { name: "IncomingExternalIdAlreadyExists", is: "exists" },
  34: { name: "StateCheckNotFound", is: "wait" },
  40: { name: "BadRequest", is: "needs-person" },
  41: { name: "UnsupportedMediaType", is: "needs-person" },
  50: { name: "ErrorServerConfiguration", is: "retry" },
};

/** A code outside the table (a newer АТОЛ): another attempt, within the receipt's budget. */
export const serviceErrorClass = (code: number): AtolErrorClass => SERVICE_ERRORS[code]?.is ?? "retry";

/**
 * A document the report says failed, by its error's type: `system`, the service refused the
 * document; `driver`, the register (its fiscal drive) refused it; `timeout`, it waited in the
 * queue too long and was never processed; `agent`, the agent serving the registers could not
 * hand it over; `unknown`, no more is known. A type outside these: another attempt.
 */
export const DOCUMENT_ERROR_TYPES: Readonly<Record<string, "retry" | "needs-person">> = {
  system: "needs-person",
  driver: "needs-person",
  timeout: "retry",
  agent: "retry",
  unknown: "retry",
};

export const documentErrorClass = (type: string): "retry" | "needs-person" => DOCUMENT_ERROR_TYPES[type] ?? "retry";

/** The receipt's record of it: code, type and АТОЛ's own words (shortened), under the reason its class gives. */
export function atolFailure(error: AtolError, needsPerson: boolean): Failure {
  const params = { code: error.code, type: error.type.slice(0, 32), text: (error.text ?? "").slice(0, 300) };
  return needsPerson ? failure("REGISTER_REFUSED", params) : failure("REGISTER_ERROR", params);
}
