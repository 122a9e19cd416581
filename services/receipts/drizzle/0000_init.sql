CREATE TABLE `receipts` (
	`id` text PRIMARY KEY NOT NULL,
	`dedupe_key` text NOT NULL,
	`source_event_id` text NOT NULL,
	`payment_id` text NOT NULL,
	`shop_id` text NOT NULL,
	`order_id` text NOT NULL,
	`refund_id` text,
	`kind` text NOT NULL,
	`is_test` integer NOT NULL,
	`status` text NOT NULL,
	`amount_kopecks` integer NOT NULL,
	`customer` text NOT NULL,
	`taxation` text NOT NULL,
	`items` text NOT NULL,
	`per_line` text,
	`generation` integer DEFAULT 0 NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`last_error` text,
	`register_document_id` text,
	`fiscal_document_number` integer,
	`fiscal_sign` text,
	`fn_number` text,
	`registered_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `receipts_dedupe_key_unique` ON `receipts` (`dedupe_key`);--> statement-breakpoint
CREATE INDEX `receipts_due_idx` ON `receipts` (`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `receipts_payment_idx` ON `receipts` (`payment_id`,`created_at`);