CREATE TABLE `invites` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text NOT NULL,
	`invited_by_email` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `teams`(`account_id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invites_token_hash_unique` ON `invites` (`token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `invites_account_email_uq` ON `invites` (`account_id`,`email`);--> statement-breakpoint
CREATE INDEX `invites_expires_idx` ON `invites` (`expires_at`);--> statement-breakpoint
CREATE TABLE `recovery_codes` (
	`user_id` text NOT NULL,
	`code_hash` text NOT NULL,
	`used_at` integer,
	PRIMARY KEY(`user_id`, `code_hash`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `sign_in_challenges` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sign_in_challenges_expires_idx` ON `sign_in_challenges` (`expires_at`);--> statement-breakpoint
CREATE TABLE `teams` (
	`account_id` text PRIMARY KEY NOT NULL,
	`require_two_factor` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `two_factor` (
	`user_id` text PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	`enabled_at` integer,
	`last_step` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP INDEX `users_one_merchant_per_account`;--> statement-breakpoint
ALTER TABLE `sessions` ADD `fresh_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- An account's one merchant user becomes the owner of its team.
INSERT INTO `teams` (`account_id`, `require_two_factor`, `created_at`)
  SELECT `account_id`, 0, min(`created_at`) FROM `users` WHERE `role` = 'merchant' AND `account_id` IS NOT NULL GROUP BY `account_id`;--> statement-breakpoint
UPDATE `users` SET `role` = 'owner' WHERE `role` = 'merchant';
