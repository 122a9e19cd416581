ALTER TABLE "payments" ADD COLUMN "connector" text;--> statement-breakpoint
ALTER TABLE "saved_methods" ADD COLUMN "connector" text;