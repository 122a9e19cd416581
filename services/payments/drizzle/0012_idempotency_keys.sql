CREATE TABLE `idempotency_keys` (
	`shop_id` text NOT NULL,
	`key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`status` integer,
	`body` text,
	`call_id` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`shop_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_idx` ON `idempotency_keys` (`created_at`);