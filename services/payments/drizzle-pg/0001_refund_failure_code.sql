ALTER TABLE "refunds" ADD COLUMN "failure_code" text;--> statement-breakpoint
ALTER TABLE "refunds" ADD COLUMN "failure_params" jsonb;