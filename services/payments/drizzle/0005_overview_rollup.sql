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
-- Backfill from the payments already stored (hand-written: the rollup is kept from here on by the repository).
INSERT INTO `daily_stats` (`shop_id`, `day`, `method`, `status`, `count`, `sum_kopecks`)
SELECT `shop_id`, strftime('%Y-%m-%d', (`created_at` + 10800000) / 1000, 'unixepoch'), coalesce(`method`, ''), `status`, count(*), sum(`amount_kopecks`)
FROM `payments`
GROUP BY 1, 2, 3, 4;
