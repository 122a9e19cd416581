DROP INDEX `refunds_session_id_unique`;--> statement-breakpoint
ALTER TABLE `refunds` ADD `merchant_refund_id` text;--> statement-breakpoint
ALTER TABLE `refunds` ADD `reason` text;--> statement-breakpoint
CREATE UNIQUE INDEX `refunds_session_merchant_refund` ON `refunds` (`session_id`,`merchant_refund_id`);