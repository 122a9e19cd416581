ALTER TABLE "payments" ADD COLUMN "connector" text;--> statement-breakpoint
ALTER TABLE "saved_methods" ADD COLUMN "connector" text;--> statement-breakpoint
CREATE INDEX "payments_reconcile_idx" ON "payments" USING btree ("updated_at") WHERE "payments"."status" IN ('PENDING', 'AUTHORIZED');