ALTER TABLE "receipts" ADD COLUMN "last_error_code" text;--> statement-breakpoint
ALTER TABLE "receipts" ADD COLUMN "last_error_params" jsonb;