CREATE TABLE `account_details` (
	`account_id` text PRIMARY KEY NOT NULL,
	`legal_form` text NOT NULL,
	`name` text NOT NULL,
	`inn` text NOT NULL,
	`ogrn` text NOT NULL,
	`kpp` text,
	`bik` text NOT NULL,
	`bank_name` text NOT NULL,
	`correspondent_account` text NOT NULL,
	`settlement_account` text NOT NULL,
	`recipient_name` text NOT NULL,
	`payout_account_changed_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
