CREATE TABLE "payout_schedules" (
	"account_id" text PRIMARY KEY NOT NULL,
	"frequency" text NOT NULL,
	"weekday" integer,
	"time" text NOT NULL,
	"minimum_kopecks" bigint NOT NULL,
	"next_run_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "payout_schedules_due" ON "payout_schedules" USING btree ("next_run_at");