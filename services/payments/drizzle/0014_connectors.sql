ALTER TABLE `payments` ADD `connector` text;--> statement-breakpoint
CREATE INDEX `payments_reconcile_idx` ON `payments` (`updated_at`) WHERE "payments"."status" IN ('PENDING', 'AUTHORIZED');--> statement-breakpoint
ALTER TABLE `saved_methods` ADD `connector` text;