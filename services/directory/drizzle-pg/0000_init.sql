-- REFERENCES name tables without "public.": the service's schema comes from ?schema= (search_path).
CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"shop_id" text NOT NULL,
	"key_hash" text NOT NULL,
	"display_prefix" text NOT NULL,
	"created_at" bigint NOT NULL,
	"revoked_at" bigint,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "shops" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"active" boolean NOT NULL,
	"sandbox" boolean NOT NULL,
	"methods" jsonb NOT NULL,
	"tariff" jsonb NOT NULL,
	"webhook_url" text,
	"signing_secret" text NOT NULL,
	"success_url" text,
	"fail_url" text,
	"receipts" jsonb,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_shop_id_shops_id_fk" FOREIGN KEY ("shop_id") REFERENCES "shops"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shops" ADD CONSTRAINT "shops_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_shop_idx" ON "api_keys" USING btree ("shop_id");--> statement-breakpoint
CREATE INDEX "shops_account_idx" ON "shops" USING btree ("account_id");