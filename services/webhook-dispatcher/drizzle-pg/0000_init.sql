CREATE TABLE "attempts" (
	"delivery_id" text NOT NULL,
	"series" integer NOT NULL,
	"attempt" integer NOT NULL,
	"started_at" bigint NOT NULL,
	"duration_ms" integer NOT NULL,
	"http_status" integer,
	"error" text,
	CONSTRAINT "attempts_delivery_id_series_attempt_pk" PRIMARY KEY("delivery_id","series","attempt")
);
--> statement-breakpoint
CREATE TABLE "deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"shop_id" text NOT NULL,
	"payment_id" text NOT NULL,
	"status" text NOT NULL,
	"order_id" text NOT NULL,
	"body" text NOT NULL,
	"occurred_at" bigint NOT NULL,
	"created_at" bigint NOT NULL,
	"series" integer DEFAULT 1 NOT NULL,
	"queued_series" integer DEFAULT 0 NOT NULL,
	"series_attempts" integer DEFAULT 0 NOT NULL,
	"result" text DEFAULT 'pending' NOT NULL,
	"last_error" text,
	"next_attempt_at" bigint,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "attempts" ADD CONSTRAINT "attempts_delivery_id_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "deliveries"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "deliveries_payment_status" ON "deliveries" USING btree ("payment_id","status");--> statement-breakpoint
CREATE INDEX "deliveries_shop_id" ON "deliveries" USING btree ("shop_id","id");--> statement-breakpoint
CREATE INDEX "deliveries_shop_occurred" ON "deliveries" USING btree ("shop_id","occurred_at");--> statement-breakpoint
CREATE INDEX "deliveries_unqueued" ON "deliveries" USING btree ("id") WHERE queued_series < series;