import { z } from "zod";

/**
 * T-Bank Internet Acquiring API v2 as this connector reads it (the bank's OpenAPI description
 * 1.80: Init, GetState, Confirm, Cancel, Charge, GetQr, AddAccountQr, GetAddAccountQrState,
 * ChargeQr, CheckOrder, GetCardList, RemoveCard, notifications). Identifiers come as numbers or
 * strings depending on the method; they are read as strings. Fields this connector does not use
 * are let through unread.
 */
const Id = z.union([z.string(), z.number()]).transform(String);
const Kopecks = z.coerce.number().int().nonnegative();

/** Every answer's envelope: Success, and ErrorCode "0" or the refusal's code with its words. */
export const Envelope = z.object({
  Success: z.boolean(),
  ErrorCode: z.coerce.string(),
  Message: z.string().optional(),
  Details: z.string().optional(),
});
export type Envelope = z.infer<typeof Envelope>;

/** Statuses of a bank payment (the bank's "Статусная модель платежа", cards and SBP). */
export const TBANK_STATUSES = [
  "NEW",
  "FORM_SHOWED",
  "PREAUTHORIZING",
  "AUTHORIZING",
  "3DS_CHECKING",
  "3DS_CHECKED",
  "AUTHORIZED",
  "CONFIRMING",
  "CONFIRM_CHECKING",
  "CONFIRMED",
  "REVERSING",
  "PARTIAL_REVERSED",
  "REVERSED",
  "REFUNDING",
  "ASYNC_REFUNDING",
  "PARTIAL_REFUNDED",
  "REFUNDED",
  "CANCELED",
  "DEADLINE_EXPIRED",
  "ATTEMPTS_EXPIRED",
  "REJECTED",
  "AUTH_FAIL",
] as const;
export type TBankStatus = (typeof TBANK_STATUSES)[number];
/** A status this build does not know is kept as its text and treated as "not decided yet". */
const Status = z.string();

export const InitReply = z.object({ PaymentId: Id, Status, Amount: Kopecks, OrderId: z.string(), PaymentURL: z.string().optional() });
export const StateReply = z.object({ PaymentId: Id, Status, Amount: Kopecks, OrderId: z.string() });
export const CancelReply = z.object({ PaymentId: Id, Status, OrderId: z.string(), OriginalAmount: Kopecks.optional(), NewAmount: Kopecks.optional() });
export const QrReply = z.object({ PaymentId: Id, Data: z.string().min(1), RequestKey: Id.optional() });
export const AddAccountQrReply = z.object({ Data: z.string().min(1), RequestKey: Id });
export const AccountQrStateReply = z.object({
  RequestKey: Id,
  Status: z.string(),
  AccountToken: z.string().optional(),
  BankMemberId: z.string().optional(),
  BankMemberName: z.string().optional(),
});
export const CheckOrderReply = z.object({
  OrderId: z.string(),
  Payments: z.array(z.object({ PaymentId: Id, Amount: Kopecks.optional(), Status, ErrorCode: z.coerce.string().optional() })).default([]),
});
export const RemoveCardReply = z.object({ CardId: Id, Status: z.string() });
/** GetCardList answers a bare array (no envelope) when it succeeds. */
export const CardList = z.array(z.object({ CardId: Id, Pan: z.string(), Status: z.string(), RebillId: Id.optional(), ExpDate: z.string().optional() }));

/** A payment notification (NotificationPayment), as the bank posts it to NotificationURL. */
export const PaymentNotification = z.object({
  TerminalKey: z.string(),
  OrderId: z.string(),
  Success: z.boolean(),
  Status: z.string(),
  PaymentId: Id,
  ErrorCode: z.coerce.string(),
  Amount: Kopecks,
  RebillId: Id.optional(),
  CardId: Id.optional(),
  Pan: z.string().optional(),
  ExpDate: z.string().optional(),
  CustomerKey: z.string().optional(),
});
export type PaymentNotification = z.infer<typeof PaymentNotification>;

/** An SBP account binding's notification (NotificationQr, NotificationType LINKACCOUNT). */
export const LinkAccountNotification = z.object({
  TerminalKey: z.string(),
  NotificationType: z.literal("LINKACCOUNT"),
  RequestKey: Id,
  Status: z.string(),
  Success: z.boolean(),
  ErrorCode: z.coerce.string(),
  AccountToken: z.string().optional(),
  BankMemberName: z.string().optional(),
});
export type LinkAccountNotification = z.infer<typeof LinkAccountNotification>;
