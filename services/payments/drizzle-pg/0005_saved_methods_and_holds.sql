CREATE TABLE "saved_methods" (
	"id" text PRIMARY KEY NOT NULL,
	"shop_id" text NOT NULL,
	"account_id" text NOT NULL,
	"customer_id" text,
	"payment_id" text NOT NULL,
	"provider_method_id" text,
	"method" text NOT NULL,
	"status" text NOT NULL,
	"card" jsonb,
	"sbp" jsonb,
	"is_test" boolean NOT NULL,
	"expires_at" bigint,
	"created_at" bigint NOT NULL,
	"deactivated_at" bigint,
	"revoked_by" text,
	CONSTRAINT "saved_methods_payment_id_unique" UNIQUE("payment_id"),
	CONSTRAINT "saved_methods_provider_method_id_unique" UNIQUE("provider_method_id")
);
--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "customer_id" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "save_method" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "save_consent" boolean;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "hold" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "held_kopecks" bigint;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "capture_receipt" jsonb;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "saved_method_id" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "payment_method" jsonb;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "merchant_initiated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "charge_retry_at" bigint;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "failure_code" text;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "failure_params" jsonb;--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "authentication" jsonb;--> statement-breakpoint
CREATE INDEX "saved_methods_shop_idx" ON "saved_methods" USING btree ("shop_id","id");--> statement-breakpoint
CREATE INDEX "saved_methods_customer_idx" ON "saved_methods" USING btree ("shop_id","customer_id","id");--> statement-breakpoint
CREATE INDEX "saved_methods_expires_idx" ON "saved_methods" USING btree ("expires_at") WHERE "saved_methods"."expires_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "payments_charge_retry_idx" ON "payments" USING btree ("charge_retry_at") WHERE "payments"."charge_retry_at" IS NOT NULL;