-- REFERENCES name tables without "public.": the service's schema comes from ?schema= (search_path).
CREATE TABLE "account_details" (
	"account_id" text PRIMARY KEY NOT NULL,
	"legal_form" text NOT NULL,
	"name" text NOT NULL,
	"inn" text NOT NULL,
	"ogrn" text NOT NULL,
	"kpp" text,
	"bik" text NOT NULL,
	"bank_name" text NOT NULL,
	"correspondent_account" text NOT NULL,
	"settlement_account" text NOT NULL,
	"recipient_name" text NOT NULL,
	"payout_account_changed_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "account_details" ADD CONSTRAINT "account_details_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE no action ON UPDATE no action;