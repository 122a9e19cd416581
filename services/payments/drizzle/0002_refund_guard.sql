-- Refunds never exceed the payment: the database refuses refunded + refunding above the amount,
-- whichever request, sweeper or replica wrote it (drizzle's SQLite CHECK on an existing table
-- would rebuild the table; a trigger does the same job in place).
CREATE TRIGGER `payments_refunds_within_amount`
BEFORE UPDATE OF `refunded_kopecks`, `refunding_kopecks` ON `payments`
WHEN NEW.`refunded_kopecks` < 0 OR NEW.`refunding_kopecks` < 0 OR NEW.`refunded_kopecks` + NEW.`refunding_kopecks` > NEW.`amount_kopecks`
BEGIN
  SELECT RAISE(ABORT, 'refunds exceed the payment amount');
END;
--> statement-breakpoint
-- Whole refunds made before refunds had their own rows: the payment reports them as refunded.
UPDATE `payments` SET `refunded_kopecks` = `amount_kopecks` WHERE `status` = 'REFUNDED';
