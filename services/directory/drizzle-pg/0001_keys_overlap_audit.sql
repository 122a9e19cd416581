CREATE TABLE "audit_events" (
	"id" text PRIMARY KEY NOT NULL,
	"at" bigint NOT NULL,
	"action" text NOT NULL,
	"account_id" text,
	"shop_id" text,
	"actor_kind" text NOT NULL,
	"actor_id" text,
	"actor_label" text NOT NULL,
	"actor_ip" text,
	"actor_user_agent" text,
	"target_type" text,
	"target_id" text,
	"before" jsonb,
	"after" jsonb,
	"request_id" text,
	"recorded_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "expires_at" bigint;--> statement-breakpoint
ALTER TABLE "shops" ADD COLUMN "retiring_secret" text;--> statement-breakpoint
ALTER TABLE "shops" ADD COLUMN "retiring_secret_expires_at" bigint;--> statement-breakpoint
CREATE INDEX "audit_events_account_at_idx" ON "audit_events" USING btree ("account_id","at","id");--> statement-breakpoint
CREATE INDEX "audit_events_shop_at_idx" ON "audit_events" USING btree ("shop_id","at","id");--> statement-breakpoint
CREATE INDEX "audit_events_at_idx" ON "audit_events" USING btree ("at","id");--> statement-breakpoint
CREATE INDEX "api_keys_expiring_idx" ON "api_keys" USING btree ("expires_at") WHERE "api_keys"."revoked_at" IS NULL AND "api_keys"."expires_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "shops_retiring_secret_idx" ON "shops" USING btree ("retiring_secret_expires_at") WHERE "shops"."retiring_secret_expires_at" IS NOT NULL;--> statement-breakpoint
-- The audit log is append-only: nothing in the product, and nobody with the store's credentials
-- short of dropping these triggers, changes, deletes or truncates an entry.
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
--> statement-breakpoint
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
