-- Issue 16 "Pagination and server search", the dashboard's stats: the device split of the
-- visitors seen in a range reads this index only (it was a scan of the account's visitors).
-- Large PostgreSQL databases: run migrations/0022_inbox_stats.concurrently.sql with psql first
-- (the same index, built without blocking writes); this IF NOT EXISTS then costs nothing.
CREATE INDEX IF NOT EXISTS "visitors_account_seen_device_idx" ON "visitors" ("account_id", "last_seen_at") INCLUDE ("device");
