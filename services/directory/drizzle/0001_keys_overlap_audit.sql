CREATE TABLE `audit_events` (
	`id` text PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	`action` text NOT NULL,
	`account_id` text,
	`shop_id` text,
	`actor_kind` text NOT NULL,
	`actor_id` text,
	`actor_label` text NOT NULL,
	`actor_ip` text,
	`actor_user_agent` text,
	`target_type` text,
	`target_id` text,
	`before` text,
	`after` text,
	`request_id` text,
	`recorded_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_events_account_at_idx` ON `audit_events` (`account_id`,`at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_shop_at_idx` ON `audit_events` (`shop_id`,`at`,`id`);--> statement-breakpoint
CREATE INDEX `audit_events_at_idx` ON `audit_events` (`at`,`id`);--> statement-breakpoint
ALTER TABLE `api_keys` ADD `expires_at` integer;--> statement-breakpoint
CREATE INDEX `api_keys_expiring_idx` ON `api_keys` (`expires_at`) WHERE "api_keys"."revoked_at" IS NULL AND "api_keys"."expires_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `shops` ADD `retiring_secret` text;--> statement-breakpoint
ALTER TABLE `shops` ADD `retiring_secret_expires_at` integer;--> statement-breakpoint
CREATE INDEX `shops_retiring_secret_idx` ON `shops` (`retiring_secret_expires_at`) WHERE "shops"."retiring_secret_expires_at" IS NOT NULL;--> statement-breakpoint
-- The audit log is append-only: nothing in the product, and nobody with the store's credentials
-- short of dropping these triggers, changes or deletes an entry.
CREATE TRIGGER `audit_events_no_update` BEFORE UPDATE ON `audit_events`
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `audit_events_no_delete` BEFORE DELETE ON `audit_events`
BEGIN
  SELECT RAISE(ABORT, 'audit_events is append-only');
END;
