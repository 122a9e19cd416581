-- Accounts, shops and keys moved to the directory service, which imports them from this file on its
-- first start (docs/directory.md, "Moving from dashboard.db"): the old tables stay here untouched,
-- so that import finds them whichever service starts first. Only users loses its foreign key.
-- foreign_keys=OFF does nothing inside the migration's transaction, so the sessions step aside
-- while users is rebuilt (dropping a table that rows still reference fails) and come back after:
-- nobody is signed out by the upgrade.
CREATE TABLE `__sessions_during_rebuild` AS SELECT * FROM `sessions`;--> statement-breakpoint
DELETE FROM `sessions`;--> statement-breakpoint
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
INSERT INTO `sessions` SELECT * FROM `__sessions_during_rebuild`;--> statement-breakpoint
DROP TABLE `__sessions_during_rebuild`;--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE INDEX `users_account_idx` ON `users` (`account_id`);