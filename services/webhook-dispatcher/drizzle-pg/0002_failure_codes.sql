DROP INDEX "deliveries_shop_failing";--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "error_code" text;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "error_params" text;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "last_error_code" text;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "last_error_params" text;--> statement-breakpoint
CREATE INDEX "deliveries_shop_failing" ON "deliveries" USING btree ("shop_id","id") WHERE (result in ('exhausted', 'blocked') or (result = 'pending' and last_error_code is not null));