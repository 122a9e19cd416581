export * from "./client.ts";
export { verifyWebhook, type VerifyFailureReason, type VerifyOptions, type VerifyResult, type RawBody, type HeaderSource } from "./verify.ts";
export { createWebhookHandler, createHonoWebhookHandler, type WebhookHandlerOptions, type WebhookEventContext } from "./handler.ts";
export { MemoryDedupeStore, type DedupeStore } from "./dedupe.ts";
export type { WebhookEvent, KnownWebhookStatus } from "./event.ts";
