CREATE TABLE "idempotency_keys" (
	"shop_id" text NOT NULL,
	"key" text NOT NULL,
	"fingerprint" text NOT NULL,
	"status" integer,
	"body" text,
	"call_id" text,
	"created_at" bigint NOT NULL,
	CONSTRAINT "idempotency_keys_shop_id_key_pk" PRIMARY KEY("shop_id","key")
);
--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");