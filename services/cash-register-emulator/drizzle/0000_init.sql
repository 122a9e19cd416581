CREATE TABLE `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`external_id` text NOT NULL,
	`operation` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`due_at` integer NOT NULL,
	`fiscal_document_number` integer,
	`fiscal_sign` text,
	`registered_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `documents_external_id_unique` ON `documents` (`external_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `documents_fiscal_document_number_unique` ON `documents` (`fiscal_document_number`);--> statement-breakpoint
CREATE INDEX `documents_waiting` ON `documents` (`status`,`due_at`);