ALTER TABLE `refunds` ADD `failure_code` text;--> statement-breakpoint
ALTER TABLE `refunds` ADD `failure_params` text;