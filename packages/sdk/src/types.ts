import type { Payout, WebhookDelivery } from "@payaccept/contracts";

// The shapes of the endpoints that teammates are adding to the API (pinned in the team brief);
// they move to @payaccept/contracts imports when those schemas land there.

export type RefundStatus = "PENDING" | "SUCCEEDED" | "FAILED";

export type Refund = {
  id: string;
  paymentId: string;
  amountKopecks: number;
  reason: string | null;
  status: RefundStatus | (string & {});
  failureReason: string | null;
  createdAt: string;
  completedAt: string | null;
};

export type CreateRefundInput = {
  /** Default: what is left of the payment after earlier refunds. */
  amountKopecks?: number;
  /** At most 255 characters. */
  reason?: string;
};

/** Oldest first. */
export type RefundList = { items: Refund[] };

export type CreatePayoutInput = { amountKopecks: number };

/** Newest first; pass the last id as startingAfter for the next page. */
export type PayoutPage = { items: Payout[]; hasMore: boolean };

export type WebhookDeliveryList = { items: WebhookDelivery[] };

export type TestWebhookResult = { id: string; httpStatus: number | null; durationMs: number; error: string | null };
