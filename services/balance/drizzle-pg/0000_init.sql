CREATE TABLE "accounts" (
	"account_id" text PRIMARY KEY NOT NULL,
	"available_kopecks" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "applied_events" (
	"payment_id" text NOT NULL,
	"status" text NOT NULL,
	"account_id" text NOT NULL,
	"shop_id" text NOT NULL,
	"amount_kopecks" bigint NOT NULL,
	"commission_kopecks" bigint NOT NULL,
	"net_kopecks" bigint NOT NULL,
	"paid_at" bigint,
	"moscow_day" text,
	"occurred_at" bigint NOT NULL,
	"applied_at" bigint NOT NULL,
	CONSTRAINT "applied_events_payment_id_status_pk" PRIMARY KEY("payment_id","status")
);
--> statement-breakpoint
CREATE TABLE "applied_refund_events" (
	"refund_id" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"payment_id" text NOT NULL,
	"account_id" text NOT NULL,
	"balance_kopecks" bigint NOT NULL,
	"occurred_at" bigint NOT NULL,
	"applied_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "frozen_buckets" (
	"account_id" text NOT NULL,
	"moscow_day" text NOT NULL,
	"amount_kopecks" bigint NOT NULL,
	CONSTRAINT "frozen_buckets_account_id_moscow_day_pk" PRIMARY KEY("account_id","moscow_day")
);
--> statement-breakpoint
CREATE TABLE "payouts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"amount_kopecks" bigint NOT NULL,
	"status" text NOT NULL,
	"idempotency_key" text,
	"created_at" bigint NOT NULL,
	"paid_at" bigint
);
--> statement-breakpoint
CREATE TABLE "refund_holds" (
	"refund_id" text PRIMARY KEY NOT NULL,
	"payment_id" text NOT NULL,
	"account_id" text NOT NULL,
	"state" text NOT NULL,
	"frozen_day" text,
	"frozen_kopecks" bigint NOT NULL,
	"available_kopecks" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"settled_at" bigint
);
--> statement-breakpoint
CREATE TABLE "refunds" (
	"payment_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"amount_kopecks" bigint NOT NULL,
	"reserved_at" bigint,
	"refunded_at" bigint
);
--> statement-breakpoint
CREATE UNIQUE INDEX "payouts_idempotency" ON "payouts" USING btree ("account_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "payouts_account" ON "payouts" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "payouts_status" ON "payouts" USING btree ("status");--> statement-breakpoint
CREATE INDEX "refund_holds_payment" ON "refund_holds" USING btree ("payment_id");