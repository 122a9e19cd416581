CREATE TABLE "bank_tokens" (
	"rail" text PRIMARY KEY NOT NULL,
	"refresh_token" text NOT NULL,
	"seed_sha256" text NOT NULL,
	"access_token" text,
	"access_expires_at" bigint,
	"lease_until" bigint,
	"updated_at" bigint NOT NULL
);
