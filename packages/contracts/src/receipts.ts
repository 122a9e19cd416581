import { z } from "zod";
import { IsoDateTime, MAX_AMOUNT_KOPECKS, Text, Uuid } from "./primitives.ts";
import { ReasonCode, ReasonParams } from "./reasons.ts";

/**
 * Fiscal receipts (54-FZ) in the terms of the fiscal data format FFD 1.2 (ФНС order ЕД-7-20/662@,
 * amended by ЕД-7-20/1050@ for the 2026 VAT rate). Each enumeration maps our names (those of the
 * online registers' APIs) to the tag's value; docs/receipts.md lists the sources.
 */

/** Tag 1055 (применяемая система налогообложения): a bit mask in FFD, one bit per system. */
export const TAXATION_SYSTEMS = { osn: 1, usn_income: 2, usn_income_outcome: 4, esn: 16, patent: 32 } as const;
export type TaxationSystem = keyof typeof TAXATION_SYSTEMS;
export const TaxationSystem = z.enum(Object.keys(TAXATION_SYSTEMS) as [TaxationSystem, ...TaxationSystem[]]);

/**
 * Tag 1199 (ставка НДС). 11 and 12 (22 %, 22/122) were added for 2026 by ЕД-7-20/1050@; the
 * /1xx forms are the calculated rates of an advance or prepayment.
 */
export const VAT_RATES = {
  vat20: 1,
  vat10: 2,
  vat120: 3,
  vat110: 4,
  vat0: 5,
  none: 6,
  vat5: 7,
  vat7: 8,
  vat105: 9,
  vat107: 10,
  vat22: 11,
  vat122: 12,
} as const;
export type VatRate = keyof typeof VAT_RATES;
export const VatRate = z.enum(Object.keys(VAT_RATES) as [VatRate, ...VatRate[]]);

/** Tag 1212 (признак предмета расчета), values 1–13 of FFD 1.2's table 101. */
export const PAYMENT_SUBJECTS = {
  commodity: 1,
  excise: 2,
  job: 3,
  service: 4,
  gambling_bet: 5,
  gambling_prize: 6,
  lottery: 7,
  lottery_prize: 8,
  intellectual_activity: 9,
  payment: 10,
  agent_commission: 11,
  composite: 12,
  another: 13,
} as const;
export type PaymentSubject = keyof typeof PAYMENT_SUBJECTS;
export const PaymentSubject = z.enum(Object.keys(PAYMENT_SUBJECTS) as [PaymentSubject, ...PaymentSubject[]]);

/** Tag 1214 (признак способа расчета). */
export const PAYMENT_MODES = {
  full_prepayment: 1,
  prepayment: 2,
  advance: 3,
  full_payment: 4,
  partial_payment: 5,
  credit: 6,
  credit_payment: 7,
} as const;
export type PaymentMode = keyof typeof PAYMENT_MODES;
export const PaymentMode = z.enum(Object.keys(PAYMENT_MODES) as [PaymentMode, ...PaymentMode[]]);

/**
 * Tag 2108 (мера количества предмета расчета), FFD 1.2's table of units: `piece` for what is sold
 * by the piece or in units, the rest the OKEI unit of the quantity; `another` for any other unit.
 */
export const MEASURES = {
  piece: 0,
  gram: 10,
  kilogram: 11,
  ton: 12,
  centimeter: 20,
  decimeter: 21,
  meter: 22,
  square_centimeter: 30,
  square_decimeter: 31,
  square_meter: 32,
  milliliter: 40,
  liter: 41,
  cubic_meter: 42,
  kilowatt_hour: 50,
  gigacalorie: 51,
  day: 70,
  hour: 71,
  minute: 72,
  second: 73,
  kilobyte: 80,
  megabyte: 81,
  gigabyte: 82,
  terabyte: 83,
  another: 255,
} as const;
export type Measure = keyof typeof MEASURES;
export const Measure = z.enum(Object.keys(MEASURES) as [Measure, ...Measure[]]);

/** Tag 1054 (признак расчета): 1 приход, 2 возврат прихода. */
export const RECEIPT_KINDS = { SALE: 1, REFUND: 2 } as const;
export const ReceiptKind = z.enum(["SALE", "REFUND"]);
export type ReceiptKind = z.infer<typeof ReceiptKind>;

export const MAX_RECEIPT_ITEMS = 100;
/** Tag 1023 carries up to 3 decimals here (enough for grams and litres); kept as thousandths. */
const QUANTITY_SCALE = 1000;
const MAX_QUANTITY = 99_999.999;

/** Tag 1008: the buyer's phone (+ and 10–15 digits) or email, where the register sends the receipt. */
export const ReceiptCustomer = z
  .object({
    email: z.email().max(64).optional(),
    phone: z.string().regex(/^\+\d{10,15}$/, { message: "must be + and 10 to 15 digits" }).optional(),
  })
  .refine((c) => c.email !== undefined || c.phone !== undefined, { message: "email or phone is required", params: { rule: "RECEIPT_CONTACT" } });
export type ReceiptCustomer = z.infer<typeof ReceiptCustomer>;

const Quantity = z
  .number()
  .positive()
  .max(MAX_QUANTITY)
  .refine((q) => Number.isInteger(Math.round(q * QUANTITY_SCALE)) && Math.abs(q * QUANTITY_SCALE - Math.round(q * QUANTITY_SCALE)) < 1e-6, {
    message: "must have at most 3 decimals",
    params: { rule: "QUANTITY_DECIMALS" },
  });

export const ReceiptItemInput = z.object({
  /** Tag 1030. */
  name: Text.trim().min(1).max(128),
  /** Tag 1023. */
  quantity: Quantity,
  /** Tag 1079: price of one unit in kopecks. */
  priceKopecks: z.number().int().min(0).max(MAX_AMOUNT_KOPECKS),
  /** Tag 1199; the shop's default when absent. */
  vat: VatRate.optional(),
  paymentSubject: PaymentSubject.default("commodity"),
  paymentMode: PaymentMode.default("full_payment"),
  /** Tag 2108: the unit of the quantity. */
  measure: Measure.default("piece"),
});

/** The `receipt` of payment creation. */
export const ReceiptRequest = z.object({
  customer: ReceiptCustomer,
  /** Tag 1055; the shop's default when absent. */
  taxation: TaxationSystem.optional(),
  items: z.array(ReceiptItemInput).min(1).max(MAX_RECEIPT_ITEMS),
});
export type ReceiptRequest = z.output<typeof ReceiptRequest>;

/**
 * Tag 1043 (стоимость предмета расчета): price × quantity rounded half up to a kopeck, in exact
 * integer arithmetic (a price of 10¹⁰ kopecks times 10⁸ thousandths overflows a double).
 */
export function itemAmountKopecks(priceKopecks: number, quantity: number): number {
  const thousandths = BigInt(Math.round(quantity * QUANTITY_SCALE));
  return Number((BigInt(priceKopecks) * thousandths + 500n) / 1000n);
}

/**
 * Adds the rule that needs the payment's amount: the items must add up to it exactly. Checked
 * only when the amount and every price and quantity are valid themselves, so the sum is never
 * reported on top of (or instead of) the problems that make it meaningless.
 */
export function itemsMustAddUp<S extends z.ZodType<{ amountKopecks: number; receipt?: { items: { priceKopecks: number; quantity: number }[] } }>>(schema: S) {
  return schema.refine(
    (v) => !v.receipt || v.receipt.items.reduce((s, i) => s + itemAmountKopecks(i.priceKopecks, i.quantity), 0) === v.amountKopecks,
    {
      path: ["receipt", "items"],
      message: "the items (price × quantity, each rounded to a kopeck) must add up to amountKopecks exactly",
      params: { rule: "RECEIPT_ITEMS_SUM" },
      when: (payload) =>
        typeof payload.value === "object" &&
        payload.value !== null &&
        !payload.issues.some((i) => {
          const [head, second, , field] = i.path ?? [];
          return (
            head === undefined ||
            head === "amountKopecks" ||
            (head === "receipt" && (second === undefined || (second === "items" && (field === undefined || field === "priceKopecks" || field === "quantity"))))
          );
        }),
    },
  );
}

/** One line as sent to the register: defaults resolved and its amount computed. */
export const ReceiptItem = z.object({
  name: z.string(),
  quantity: z.number(),
  priceKopecks: z.number().int(),
  amountKopecks: z.number().int(),
  vat: VatRate,
  paymentSubject: PaymentSubject,
  paymentMode: PaymentMode,
  /** Tag 2108; absent in receipts made before it was recorded, which were all by the piece. */
  measure: Measure.optional(),
});
export type ReceiptItem = z.infer<typeof ReceiptItem>;

/** What payments stores with the payment and carries in its events: the request with the shop's defaults applied. */
export const ReceiptData = z.object({
  customer: ReceiptCustomer,
  taxation: TaxationSystem,
  items: z.array(ReceiptItem),
});
export type ReceiptData = z.infer<typeof ReceiptData>;

/** A shop's receipt settings (dashboard → directory). */
export const ShopReceiptSettings = z.object({
  /** Payments of the shop must carry a receipt. */
  required: z.boolean(),
  taxation: TaxationSystem.nullable(),
  vat: VatRate.nullable(),
});
export type ShopReceiptSettings = z.infer<typeof ShopReceiptSettings>;

export const RECEIPT_STATUSES = ["PENDING", "REGISTERED", "FAILED"] as const;
export const ReceiptStatus = z.enum(RECEIPT_STATUSES);
export type ReceiptStatus = z.infer<typeof ReceiptStatus>;

/** The register's answer once a receipt is fiscalised. */
export const FiscalData = z.object({
  /** ФД, tag 1040. */
  documentNumber: z.number().int(),
  /** ФП/ФПД, tag 1077. */
  fiscalSign: z.string(),
  /** ФН, tag 1041. */
  driveNumber: z.string(),
  registeredAt: IsoDateTime,
});
export type FiscalData = z.infer<typeof FiscalData>;

/** A receipt as the merchant sees it (API, dashboard, admin CLI). */
export const Receipt = z.object({
  id: Uuid,
  paymentId: Uuid,
  refundId: z.string().nullable(),
  kind: ReceiptKind,
  status: ReceiptStatus,
  amountKopecks: z.number().int(),
  isTest: z.boolean(),
  customer: ReceiptCustomer,
  taxation: TaxationSystem,
  items: z.array(ReceiptItem),
  fiscal: FiscalData.nullable(),
  attempts: z.number().int(),
  /** Why the last attempt did not register it, in English; the code and its params say the same for programs. */
  lastError: z.string().nullable(),
  lastErrorCode: ReasonCode.nullable(),
  lastErrorParams: ReasonParams.nullable(),
  createdAt: IsoDateTime,
});
export type Receipt = z.infer<typeof Receipt>;

export const ReceiptList = z.object({ items: z.array(Receipt) });
export type ReceiptList = z.infer<typeof ReceiptList>;

/** A receipt in a line (the CSV export): what it is and where it stands, without its lines. */
export const ReceiptSummary = Receipt.pick({ id: true, paymentId: true, kind: true, status: true, amountKopecks: true }).extend({
  fiscalDocumentNumber: z.number().int().nullable(),
});
export type ReceiptSummary = z.infer<typeof ReceiptSummary>;

/** A FAILED receipt as the operators' list has it (receipt:list --failed): whose, what and why, without its lines. */
export const FailedReceipt = Receipt.pick({
  id: true,
  paymentId: true,
  refundId: true,
  kind: true,
  amountKopecks: true,
  taxation: true,
  attempts: true,
  lastError: true,
  lastErrorCode: true,
  lastErrorParams: true,
  createdAt: true,
}).extend({ shopId: z.string(), failedAt: IsoDateTime });
export type FailedReceipt = z.infer<typeof FailedReceipt>;
