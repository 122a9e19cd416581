CREATE TABLE `flash_messages` (
	`session_id_hash` text PRIMARY KEY NOT NULL,
	`path` text NOT NULL,
	`sealed` text NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`session_id_hash`) REFERENCES `sessions`(`id_hash`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `flash_messages_expires_idx` ON `flash_messages` (`expires_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_one_merchant_per_account` ON `users` (`account_id`) WHERE role = 'merchant';