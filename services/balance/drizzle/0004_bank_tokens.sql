CREATE TABLE `bank_tokens` (
	`rail` text PRIMARY KEY NOT NULL,
	`refresh_token` text NOT NULL,
	`seed_sha256` text NOT NULL,
	`access_token` text,
	`access_expires_at` integer,
	`lease_until` integer,
	`updated_at` integer NOT NULL
);
