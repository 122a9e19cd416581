import { z } from "zod";
import { VatRate } from "./receipts.ts";

/**
 * АТОЛ Онлайн API v5 (FFD 1.2), as the receipts service's connector speaks it
 * (services/receipts/src/register/atol/, docs/receipts.md "АТОЛ Онлайн"). Field names are АТОЛ's:
 * money in rubles with kopecks as a JSON number, times as "dd.mm.yyyy HH:MM:SS". Only what the
 * connector sends or reads is described; replies may carry more, which is ignored.
 */

/** An error as every АТОЛ reply carries it: `code` from АТОЛ's table of service errors, `type` system, unknown, driver, timeout or agent. */
export const AtolError = z.object({
  error_id: z.string().nullish(),
  code: z.number().int(),
  text: z.string().nullish(),
  type: z.string(),
});
export type AtolError = z.infer<typeof AtolError>;

/** Any reply, as far as its error goes: `uuid` names the document an error is about (code 33: the one already there). */
export const AtolErrorReply = z.object({ error: AtolError.nullish(), uuid: z.string().nullish(), status: z.string().nullish() });

/** POST <base>/getToken: the token lives 24 hours. */
export const AtolTokenReply = z.object({ token: z.string().min(1) });

/** POST <base>/<group_code>/<operation>: the document's uuid and `wait`, or an error. */
export const AtolRegistrationReply = z.object({ uuid: z.string(), status: z.enum(["wait", "done", "fail"]) });

/** What a fiscalised document's report says (tags 1040 ФД, 1077 ФПД, 1041 ФН, 1012 date and time). */
export const AtolReportPayload = z.object({
  fiscal_document_number: z.number().int(),
  fiscal_document_attribute: z.union([z.number().int(), z.string().regex(/^\d+$/)]),
  fn_number: z.string(),
  receipt_datetime: z.string(),
  total: z.number(),
});

/** GET <base>/<group_code>/report/<uuid>, and the body of the callback АТОЛ posts to service.callback_url. */
export const AtolReport = z.object({
  uuid: z.string(),
  status: z.enum(["wait", "done", "fail"]),
  error: AtolError.nullish(),
  payload: AtolReportPayload.nullish(),
  external_id: z.string().nullish(),
});
export type AtolReport = z.infer<typeof AtolReport>;

/** Of a callback we read only which document it is about: its state is asked of АТОЛ itself (callbacks are not signed). */
export const AtolCallback = z.object({ uuid: z.string().min(1), external_id: z.string().min(1) });

const Rubles = z.number().min(0);

/** One line (tag 1059). */
export const AtolItem = z.object({
  name: z.string().max(128),
  /** Tag 1079. */
  price: Rubles,
  /** Tag 1023. */
  quantity: z.number().positive(),
  /** Tag 2108, FFD 1.2's number of the unit (MEASURES). */
  measure: z.number().int(),
  /** Tag 1043 = price × quantity. */
  sum: Rubles,
  /** Tag 1214 by name (full_payment…). */
  payment_method: z.string(),
  /** Tag 1212 by its FFD 1.2 number (PAYMENT_SUBJECTS). */
  payment_object: z.number().int(),
  /** Tag 1199; the register computes the tax itself. */
  vat: z.object({ type: VatRate }),
});

/** The body of sell (приход) and sell_refund (возврат прихода). */
export const AtolDocumentRequest = z.object({
  timestamp: z.string(),
  external_id: z.string().max(128),
  service: z.object({ callback_url: z.string().max(256) }).optional(),
  receipt: z.object({
    client: z.object({ email: z.string().optional(), phone: z.string().optional() }),
    company: z.object({
      email: z.string().max(64),
      /** Tag 1055 by name: the receipt's taxation system. */
      sno: z.string(),
      inn: z.string(),
      /** Tag 1187: for an internet sale, the site's address. */
      payment_address: z.string().max(256),
    }),
    items: z.array(AtolItem).min(1).max(100),
    /** Type 1: electronically (tag 1081). */
    payments: z.array(z.object({ type: z.number().int(), sum: Rubles })).min(1),
    total: Rubles,
  }),
});
export type AtolDocumentRequest = z.infer<typeof AtolDocumentRequest>;
