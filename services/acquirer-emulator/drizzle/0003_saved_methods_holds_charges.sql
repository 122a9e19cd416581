CREATE TABLE `methods` (
	`id` text PRIMARY KEY NOT NULL,
	`method` text NOT NULL,
	`status` text NOT NULL,
	`revoked_by` text,
	`revoked_at` integer,
	`card_brand` text,
	`card_last4` text,
	`card_exp_month` integer,
	`card_exp_year` integer,
	`profile` text NOT NULL,
	`payer_id` text,
	`merchant_name` text,
	`session_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `sessions`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `methods_payer` ON `methods` (`payer_id`);--> statement-breakpoint
ALTER TABLE `sessions` ADD `kind` text DEFAULT 'PAYMENT' NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `save_method` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `hold` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `hold_expires_at` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `captured_kopecks` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `merchant_name` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `method_id` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `pending_card` text;--> statement-breakpoint
CREATE INDEX `sessions_hold_due` ON `sessions` (`status`,`hold_expires_at`);