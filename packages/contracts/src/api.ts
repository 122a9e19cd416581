import { z } from "zod";
import {
  IsoDateTime,
  MAX_AMOUNT_KOPECKS,
  METADATA_MAX_BYTES,
  MIN_AMOUNT_KOPECKS,
  PAYMENT_STATUSES,
  PaymentMethod,
  PaymentStatus,
  ReturnUrl,
  Uuid,
} from "./primitives.ts";
import { itemsMustAddUp, ReceiptRequest } from "./receipts.ts";

const utf8 = new TextEncoder();

export const Metadata = z
  .record(z.string(), z.unknown())
  .refine((m) => utf8.encode(JSON.stringify(m)).byteLength <= METADATA_MAX_BYTES, {
    message: `must be at most ${METADATA_MAX_BYTES} bytes as JSON`,
  });

export const TelegramId = z
  .union([
    z.string().regex(/^\d{1,20}$/, { message: "must be a string of 1 to 20 digits or an integer" }),
    z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  ])
  .transform((v) => String(v));

/** §2.1. Unknown fields are ignored (stripped). `receipt` is our addition (docs/receipts.md). */
export const CreatePaymentRequest = itemsMustAddUp(z.object({
  orderId: z.string().min(1).max(64),
  amountKopecks: z.number().int().min(MIN_AMOUNT_KOPECKS).max(MAX_AMOUNT_KOPECKS),
  description: z.string().max(255).optional(),
  email: z.email().max(255).optional(),
  method: PaymentMethod.optional(),
  telegramId: TelegramId.optional(),
  metadata: Metadata.optional(),
  successUrl: ReturnUrl.optional(),
  failUrl: ReturnUrl.optional(),
  receipt: ReceiptRequest.optional(),
}));
export type CreatePaymentRequest = z.output<typeof CreatePaymentRequest>;
export type CreatePaymentInput = z.input<typeof CreatePaymentRequest>;

/** §2.2. Every field always present. */
export const Payment = z.object({
  id: Uuid,
  orderId: z.string(),
  status: PaymentStatus,
  amountKopecks: z.number().int(),
  commissionKopecks: z.number().int(),
  description: z.string().nullable(),
  method: PaymentMethod.nullable(),
  telegramId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  successUrl: z.string().nullable(),
  failUrl: z.string().nullable(),
  payUrl: z.url(),
  isTest: z.boolean(),
  paidAt: IsoDateTime.nullable(),
  createdAt: IsoDateTime,
});
export type Payment = z.infer<typeof Payment>;

/** §2.3 */
export const PaymentListPage = z.object({
  items: z.array(Payment),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type PaymentListPage = z.infer<typeof PaymentListPage>;

const statusList = z
  .string()
  .transform((s, ctx) => {
    const parts = s.split(",").map((p) => p.trim()).filter((p) => p.length > 0);
    const unknown = parts.filter((p) => !(PAYMENT_STATUSES as readonly string[]).includes(p));
    if (parts.length === 0 || unknown.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `unknown status ${unknown.join(", ") || "(empty)"}; allowed: ${PAYMENT_STATUSES.join(", ")}`,
      });
      return z.NEVER;
    }
    return [...new Set(parts)] as PaymentStatus[];
  });

const intParam = (min: number, max: number, dflt: number) =>
  z
    .string()
    .regex(/^\d+$/, { message: `must be an integer from ${min} to ${max}` })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .prefault(String(dflt));

/** §4.2 list mode. Query values arrive as strings. */
export const ListPaymentsQuery = z
  .object({
    from: IsoDateTime.optional(),
    to: IsoDateTime.optional(),
    status: statusList.optional(),
    page: intParam(1, 10000, 1),
    limit: intParam(1, 100, 20),
  })
  .refine((q) => !(q.from && q.to && Date.parse(q.from) > Date.parse(q.to)), {
    path: ["from"],
    message: "must not be later than to",
    // Also when other parameters are invalid, so that every problem is listed at once (§7).
    when: (payload) => !payload.issues.some((i) => i.path?.[0] === "from" || i.path?.[0] === "to"),
  });
export type ListPaymentsQuery = z.output<typeof ListPaymentsQuery>;

/** §4.2 lookup mode: only orderId is read. */
export const LookupPaymentQuery = z.object({ orderId: z.string().min(1).max(64) });

export const PaymentIdParam = z.object({ id: Uuid });

/** §2.4 */
export const Balance = z.object({
  availableKopecks: z.number().int(),
  frozenKopecks: z.number().int(),
  holdHour: z.number().int().min(0).max(23),
});
export type Balance = z.infer<typeof Balance>;

/** §2.5 */
export const WebhookBody = z.object({
  id: z.string(),
  orderId: z.string(),
  status: z.string(),
  amountKopecks: z.number().int(),
  telegramId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  test: z.boolean().optional(),
});
export type WebhookBody = z.infer<typeof WebhookBody>;

/** §2.6 */
export const ErrorBody = z.object({
  statusCode: z.number().int(),
  message: z.union([z.string(), z.array(z.string())]),
  error: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
