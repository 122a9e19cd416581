CREATE TABLE `daily_refunds` (
	`shop_id` text NOT NULL,
	`day` text NOT NULL,
	`count` integer NOT NULL,
	`sum_kopecks` integer NOT NULL,
	PRIMARY KEY(`shop_id`, `day`)
);
--> statement-breakpoint
CREATE TABLE `daily_stats` (
	`shop_id` text NOT NULL,
	`day` text NOT NULL,
	`method` text NOT NULL,
	`status` text NOT NULL,
	`count` integer NOT NULL,
	`sum_kopecks` integer NOT NULL,
	PRIMARY KEY(`shop_id`, `day`, `method`, `status`)
);
--> statement-breakpoint
CREATE INDEX `payments_shop_amount_idx` ON `payments` (`shop_id`,`amount_kopecks`,`seq`,`status`);
--> statement-breakpoint
-- Backfill from the payments and refunds already stored (hand-written: the rollups are kept from here on by the repositories).
INSERT INTO `daily_stats` (`shop_id`, `day`, `method`, `status`, `count`, `sum_kopecks`)
SELECT `shop_id`, strftime('%Y-%m-%d', (`created_at` + 10800000) / 1000, 'unixepoch'), coalesce(`method`, ''), `status`, count(*), sum(`amount_kopecks`)
FROM `payments`
GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
INSERT INTO `daily_refunds` (`shop_id`, `day`, `count`, `sum_kopecks`)
SELECT `shop_id`, strftime('%Y-%m-%d', (`completed_at` + 10800000) / 1000, 'unixepoch'), count(*), sum(`amount_kopecks`)
FROM `refunds`
WHERE `status` = 'SUCCEEDED'
GROUP BY 1, 2;
