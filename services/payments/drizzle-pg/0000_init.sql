-- Hand-edited: the foreign key names "payments" without drizzle-kit's "public." so the tables may live in the schema PAYMENTS_DATABASE_URL's ?schema= chooses (search_path).
--> statement-breakpoint
CREATE TABLE "daily_refunds" (
	"shop_id" text NOT NULL,
	"day" text NOT NULL,
	"count" bigint NOT NULL,
	"sum_kopecks" bigint NOT NULL,
	CONSTRAINT "daily_refunds_shop_id_day_pk" PRIMARY KEY("shop_id","day")
);
--> statement-breakpoint
CREATE TABLE "daily_stats" (
	"shop_id" text NOT NULL,
	"day" text NOT NULL,
	"method" text NOT NULL,
	"status" text NOT NULL,
	"count" bigint NOT NULL,
	"sum_kopecks" bigint NOT NULL,
	CONSTRAINT "daily_stats_shop_id_day_method_status_pk" PRIMARY KEY("shop_id","day","method","status")
);
--> statement-breakpoint
CREATE TABLE "outbox" (
	"seq" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "outbox_seq_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"event_id" text NOT NULL,
	"payment_id" text NOT NULL,
	"kind" text DEFAULT 'payment' NOT NULL,
	"status" text NOT NULL,
	"payload" text NOT NULL,
	"request_id" text,
	"created_at" bigint NOT NULL,
	"published_at" bigint,
	CONSTRAINT "outbox_event_id_unique" UNIQUE("event_id")
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"id" text PRIMARY KEY NOT NULL,
	"shop_id" text NOT NULL,
	"account_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"order_id" text NOT NULL,
	"status" text NOT NULL,
	"amount_kopecks" bigint NOT NULL,
	"commission_kopecks" bigint NOT NULL,
	"description" text,
	"email" text,
	"method" text,
	"method_fixed" boolean DEFAULT false NOT NULL,
	"telegram_id" text,
	"metadata" jsonb,
	"success_url" text,
	"fail_url" text,
	"is_test" boolean NOT NULL,
	"paid_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"expires_at" bigint,
	"provider_session_id" text,
	"sbp_qr_payload" text,
	"sbp_deep_link" text,
	"card_form_action" text,
	"refunded_kopecks" bigint DEFAULT 0 NOT NULL,
	"refunding_kopecks" bigint DEFAULT 0 NOT NULL,
	"receipt" jsonb,
	CONSTRAINT "payments_refunds_within_amount" CHECK ("payments"."refunded_kopecks" >= 0 AND "payments"."refunding_kopecks" >= 0 AND "payments"."refunded_kopecks" + "payments"."refunding_kopecks" <= "payments"."amount_kopecks")
);
--> statement-breakpoint
CREATE TABLE "refunds" (
	"id" text PRIMARY KEY NOT NULL,
	"payment_id" text NOT NULL,
	"shop_id" text NOT NULL,
	"amount_kopecks" bigint NOT NULL,
	"balance_kopecks" bigint NOT NULL,
	"reason" text,
	"status" text NOT NULL,
	"failure_reason" text,
	"idempotency_key" text,
	"created_at" bigint NOT NULL,
	"completed_at" bigint,
	"retry_at" bigint,
	CONSTRAINT "refunds_amount_positive" CHECK ("refunds"."amount_kopecks" > 0 AND "refunds"."balance_kopecks" >= 0)
);
--> statement-breakpoint
CREATE TABLE "status_counts" (
	"shop_id" text NOT NULL,
	"status" text NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "status_counts_shop_id_status_pk" PRIMARY KEY("shop_id","status")
);
--> statement-breakpoint
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_payment_id_payments_id_fk" FOREIGN KEY ("payment_id") REFERENCES "payments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "outbox_unpublished_idx" ON "outbox" USING btree ("seq") WHERE "outbox"."published_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "payments_shop_order_uq" ON "payments" USING btree ("shop_id","order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_shop_seq_uq" ON "payments" USING btree ("shop_id","seq");--> statement-breakpoint
CREATE INDEX "payments_shop_created_idx" ON "payments" USING btree ("shop_id","created_at","id","seq");--> statement-breakpoint
CREATE INDEX "payments_shop_status_seq_idx" ON "payments" USING btree ("shop_id","status","seq");--> statement-breakpoint
CREATE INDEX "payments_shop_amount_idx" ON "payments" USING btree ("shop_id","amount_kopecks","seq","status");--> statement-breakpoint
CREATE INDEX "payments_expires_idx" ON "payments" USING btree ("expires_at") WHERE "payments"."expires_at" IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "refunds_payment_key_uq" ON "refunds" USING btree ("payment_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "refunds_payment_idx" ON "refunds" USING btree ("payment_id","id");--> statement-breakpoint
CREATE INDEX "refunds_retry_idx" ON "refunds" USING btree ("retry_at") WHERE "refunds"."retry_at" IS NOT NULL;