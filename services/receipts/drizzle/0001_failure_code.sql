ALTER TABLE `receipts` ADD `last_error_code` text;--> statement-breakpoint
ALTER TABLE `receipts` ADD `last_error_params` text;