export { createClient, type ClientOptions, type ListPaymentMethodsParams, type ListPaymentsParams, type ListPayoutsParams, type PayacceptClient, type WriteOptions } from "./client.ts";
export { ApiError, NetworkError, PayacceptError } from "./errors.ts";
export type { TransportOptions } from "./transport.ts";
export type { Balance, CapturePaymentRequest, CreatePaymentInput, PaymentMethodDetails, PaymentMethodList, SandboxOutcomeRequest, SavedPaymentMethod, CreatePayoutRequest, CreateRefundRequest, Payment, PaymentListPage, PaymentStatus, Payout, PayoutList, Refund, RefundList, RefundStatus, TestWebhookResult, WebhookAttempt, WebhookDelivery, WebhookDeliveryList } from "@payaccept/contracts";
export { verifyWebhook, type VerifyFailureReason, type VerifyScheme, type VerifyOptions, type VerifyResult, type RawBody, type HeaderSource } from "./verify.ts";
export { createWebhookHandler, createHonoWebhookHandler, type WebhookHandlerOptions, type WebhookEventContext } from "./handler.ts";
export { MemoryDedupeStore, type DedupeStore } from "./dedupe.ts";
export type { WebhookEvent, KnownWebhookStatus } from "./event.ts";
