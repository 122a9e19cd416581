-- Accounts, shops and keys moved to the directory service, which imports them from this file on its
-- first start (docs/directory.md, "Moving from dashboard.db"): the old tables stay here untouched,
-- so that import finds them whichever service starts first. Only users loses its foreign key.
-- foreign_keys=OFF does nothing inside the migration's transaction; deferring lets users be
-- rebuilt under sessions' foreign key (checked at commit, when every user is back).
PRAGMA defer_foreign_keys = ON;--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_users` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_users`("id", "account_id", "email", "password_hash", "role", "created_at") SELECT "id", "account_id", "email", "password_hash", "role", "created_at" FROM `users`;--> statement-breakpoint
DROP TABLE `users`;--> statement-breakpoint
ALTER TABLE `__new_users` RENAME TO `users`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE INDEX `users_account_idx` ON `users` (`account_id`);