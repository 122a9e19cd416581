CREATE TABLE "receipts" (
	"id" text PRIMARY KEY NOT NULL,
	"dedupe_key" text NOT NULL,
	"source_event_id" text NOT NULL,
	"payment_id" text NOT NULL,
	"shop_id" text NOT NULL,
	"order_id" text NOT NULL,
	"refund_id" text,
	"kind" text NOT NULL,
	"is_test" boolean NOT NULL,
	"status" text NOT NULL,
	"amount_kopecks" bigint NOT NULL,
	"customer" jsonb NOT NULL,
	"taxation" text NOT NULL,
	"items" jsonb NOT NULL,
	"per_line" jsonb,
	"generation" bigint DEFAULT 0 NOT NULL,
	"attempts" bigint DEFAULT 0 NOT NULL,
	"next_attempt_at" bigint,
	"last_error" text,
	"register_document_id" text,
	"fiscal_document_number" bigint,
	"fiscal_sign" text,
	"fn_number" text,
	"registered_at" bigint,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "receipts_dedupe_key_unique" UNIQUE("dedupe_key")
);
--> statement-breakpoint
CREATE INDEX "receipts_due_idx" ON "receipts" USING btree ("next_attempt_at");--> statement-breakpoint
CREATE INDEX "receipts_payment_idx" ON "receipts" USING btree ("payment_id","created_at");