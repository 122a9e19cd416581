ALTER TABLE `payments` ADD `connector` text;--> statement-breakpoint
ALTER TABLE `saved_methods` ADD `connector` text;